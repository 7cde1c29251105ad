// Cells: phone lines, each carried by a device.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { App } from '../../http/types.ts';
import type { DevicesService } from '../devices/service.ts';
import type { EventsService } from '../events/service.ts';
import { CellsRepository } from './repository.ts';
import { registerCellRoutes } from './routes.ts';
import { CellsService } from './service.ts';

export interface CellsModule {
  cells: CellsService;
}

export function build(deps: { db: Kysely<DB>; clock: Clock; devices: DevicesService; events: EventsService }): CellsModule {
  return { cells: new CellsService({ repo: new CellsRepository(deps.db), devices: deps.devices, events: deps.events, clock: deps.clock }) };
}

export function register(app: App, module: CellsModule): void {
  registerCellRoutes(app, module.cells);
}
