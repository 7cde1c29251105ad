// Cells: phone lines, each carried by a device.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { App } from '../../http/types.ts';
import type { Periodic } from '../../lib/background.ts';
import type { Wirable } from '../../lib/ports.ts';
import { PRESENCE_INTERVAL_MS, presenceWorker } from '../../workers/presence.ts';
import type { DevicesService } from '../devices/service.ts';
import type { EventsService } from '../events/service.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { cellOperations, type CellOperations } from './operations.ts';
import { CellsRepository } from './repository.ts';
import { registerCellRoutes } from './routes.ts';
import { CellsService } from './service.ts';

export interface CellsModule {
  cells: CellsService;
  operations: CellOperations;
  ports: Wirable[];
  loops: Periodic[];
}

export function build(deps: {
  db: Kysely<DB>;
  clock: Clock;
  devices: DevicesService;
  events: EventsService;
}): CellsModule {
  const cells = new CellsService({ ...deps, repo: new CellsRepository(deps.db) });
  // Presence of the phones carrying the cells, and the pairing of waiting cells it repairs.
  const presence = presenceWorker({ devices: deps.devices, cells });
  return {
    cells,
    operations: cellOperations(cells),
    ports: Object.values(cells.ports),
    loops: [{ name: 'presence', intervalMs: PRESENCE_INTERVAL_MS, tick: () => presence.tick() }],
  };
}

export function register(app: App, module: CellsModule, rest: RestBinder): void {
  registerCellRoutes(app, rest, module.operations);
}
