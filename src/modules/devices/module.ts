// Devices: the phones in the rack (admin surface), their own surface (X-Phone-Key) and the
// device agent they download (GET /v1/device/agent.mjs).
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { App } from '../../http/types.ts';
import type { Periodic } from '../../lib/background.ts';
import type { Wirable } from '../../lib/ports.ts';
import { registerAgentRoute } from './agent-routes.ts';
import { HEARTBEATS_PRUNE_INTERVAL_MS, HeartbeatHistory } from './heartbeats.ts';
import { HeartbeatsRepository } from './heartbeats-repository.ts';
import { DevicesRepository } from './repository.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { deviceOperations, type DeviceOperations } from './operations.ts';
import { registerDeviceRoutes } from './routes.ts';
import { DevicesService } from './service.ts';
import type { RecordOperatorAction } from '../admin/audit.ts';
import { EnrollmentsRepository } from './enrollments-repository.ts';
import { EnrollmentsService } from './enrollments.ts';
import { enrollmentOperations, registerEnrollmentRoutes, type EnrollmentOperations } from './enrollment-operations.ts';

export interface DevicesModule {
  devices: DevicesService;
  enrollments: EnrollmentsService;
  operations: DeviceOperations;
  enrollmentOperations: EnrollmentOperations;
  ports: Wirable[];
  loops: Periodic[];
}

export function build(deps: {
  db: Kysely<DB>;
  clock: Clock;
  audit: RecordOperatorAction;
  baseUrl: string;
}): DevicesModule {
  const history = new HeartbeatHistory({ repo: new HeartbeatsRepository(deps.db), clock: deps.clock });
  const lines = new EnrollmentsRepository(deps.db);
  const devices = new DevicesService({ ...deps, repo: new DevicesRepository(deps.db), lines, history });
  // Heartbeat history past its 7 days; idempotent deletes, so every process may run it.
  const prune: Periodic = {
    name: 'heartbeats-prune',
    intervalMs: HEARTBEATS_PRUNE_INTERVAL_MS,
    tick: async () => (await devices.pruneHeartbeats()) + (await enrollments.prune()),
  };
  const enrollments = new EnrollmentsService({ ...deps, repo: lines, devices });
  return {
    devices,
    enrollments,
    operations: deviceOperations(devices),
    enrollmentOperations: enrollmentOperations(enrollments),
    ports: Object.values(devices.ports),
    loops: [prune],
  };
}

export function register(app: App, module: DevicesModule, rest: RestBinder): void {
  registerEnrollmentRoutes(app, rest, module.enrollmentOperations);
  registerDeviceRoutes(app, module.devices, rest, module.operations);
  registerAgentRoute(app);
}
