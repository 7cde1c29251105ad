// Devices: the phones in the rack (admin surface), their own surface (X-Phone-Key) and the
// device agent they download (GET /v1/device/agent.mjs).
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { App } from '../../http/types.ts';
import { registerAgentRoute } from './agent-routes.ts';
import { DevicesRepository } from './repository.ts';
import { registerDeviceRoutes } from './routes.ts';
import { DevicesService } from './service.ts';

export interface DevicesModule {
  devices: DevicesService;
}

export function build(deps: { db: Kysely<DB>; clock: Clock }): DevicesModule {
  return { devices: new DevicesService({ repo: new DevicesRepository(deps.db), clock: deps.clock }) };
}

export function register(app: App, module: DevicesModule): void {
  registerDeviceRoutes(app, module.devices);
  registerAgentRoute(app);
}
