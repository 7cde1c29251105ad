// What messaging needs from the cells and devices modules, stated structurally so the two
// modules meet only at these service methods.
import type { Executor } from '../../db/schema.ts';
import type { ApiError } from '../../lib/errors.ts';
import type { SendingCell } from '../cells/service.ts';
import type { DeviceAssignment } from '../devices/service.ts';
import type { MessagesTable } from './tables.ts';

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
  sendingCells(
    ex: Executor,
    requests: readonly { organizationId: string; cellId: string }[],
  ): Promise<(SendingCell | ApiError)[]>;
}

/** The ignore lists (contract §5, kept by the pods module): a cell's own and its pod's. */
export interface IgnoreListPort {
  /** Whether inbound texts from `participant` on this cell are ignored (in the upload's transaction). */
  isIgnored(ex: Executor, organizationId: string, cellId: string, participant: string): Promise<boolean>;
  /** Every participant ignored on this cell or its pod. */
  ignoredParticipants(organizationId: string, cellId: string): Promise<string[]>;
}

export interface DevicesPort {
  /** The cell the device carries now, or null when it carries none. */
  assignment(deviceId: string): Promise<DeviceAssignment | null>;
  /** The phone carrying the cell and its limits, or undefined when none does (the pace of a pod's broadcast). */
  phoneOfCell(
    cellId: string,
  ): Promise<{ id: string; send_rate_per_minute: number; daily_send_limit: number } | undefined>;
}

/** The billing of one batch of sends, in its transaction: who may send at all, then the charges. */
export interface SendCharges {
  /** The 402 for every send of this organization (e.g. suspended), or null. */
  refusal(organizationId: string): ApiError | null;
  /** Charges each message to its organization; per message, null or the error that refuses it. */
  charge(messages: readonly MessagesTable[]): Promise<(ApiError | null)[]>;
}

/** What became of a send a device claimed: reported sent (or delivered), failed, or stuck (lease ran out). */
export interface SendOutcome {
  deviceId: string;
  messageId: string;
  outcome: 'sent' | 'failed' | 'stuck';
  errorCode: string | null;
  segments: number;
}

/** The devices module keeps each phone's outcomes and decides its health from them (contract §11). */
export interface OutcomesPort {
  /** In the transaction of the report or the lease expiry. */
  record(tx: Executor, outcome: SendOutcome): Promise<void>;
}

/** What messaging needs from billing (contract §7): charges at send, refunds of what never went out. */
export interface ChargesPort {
  sends(tx: Executor, organizationIds: readonly string[]): Promise<SendCharges>;
  /** Refunds these messages (failed or canceled before they were sent), in the settling transaction. */
  refund(tx: Executor, messageIds: readonly string[]): Promise<void>;
}
