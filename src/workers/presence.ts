// Presence: devices silent for 120 s go offline (cell.offline for the cell they carry). The same
// tick pairs waiting cells with free devices, repairing a pairing lost between two transactions
// (e.g. a process that stopped right after a commit).
import type { CellsService } from '../modules/cells/service.ts';
import type { DevicesService } from '../modules/devices/service.ts';

export const PRESENCE_INTERVAL_MS = 5000;

export interface PresenceWorker {
  tick(): Promise<{ offline: number; paired: number }>;
}

export function presenceWorker(deps: { devices: DevicesService; cells: CellsService }): PresenceWorker {
  return {
    async tick() {
      const offline = await deps.devices.markSilentOffline();
      const paired = await deps.cells.fillProvisioning();
      return { offline, paired };
    },
  };
}
