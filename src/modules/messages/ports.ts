// What messaging needs from the cells and devices modules, stated structurally so the two
// modules meet only at these service methods.
import type { Executor } from '../../db/schema.ts';
import type { ApiError } from '../../lib/errors.ts';
import type { SendingCell } from '../cells/service.ts';
import type { DeviceAssignment } from '../devices/service.ts';

export type { DeviceAssignment };

export interface CellRef {
  id: string;
  organization_id: string;
  phone_number: string | null;
}

export interface CellsPort {
  /** The organization's cell; 404 for unknown, another organization's or released cells. */
  getOwned(organizationId: string, cellId: string): Promise<CellRef>;
  /**
   * For a batch of sends, in its transaction: per request, the cell if it can send now, else the
   * error to answer (404, or 409 cell_not_active).
   */
  sendingCells(ex: Executor, requests: readonly { organizationId: string; cellId: string }[]): Promise<(SendingCell | ApiError)[]>;
  /** Runs inside the transaction that releases a cell. */
  onRelease(listener: (tx: Executor, cell: CellRef) => Promise<void>): void;
}

export interface DevicesPort {
  /** The cell the device carries now, or null when it carries none. */
  assignment(deviceId: string): Promise<DeviceAssignment | null>;
}
