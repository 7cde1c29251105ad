// The operator console at /console/operator (contract §11, issue 25 §1): sign-in with an admin
// token into a session of its own; the fleet, each phone, organizations and deposits. Built and
// registered by the console module beside the organization console, sharing its stylesheet,
// form parser and page headers, never its sessions.
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import type { App } from '../../../http/types.ts';
import type { Clock } from '../../../lib/clock.ts';
import type { OperatorAudit } from '../../admin/audit.ts';
import type { BillingModule } from '../../billing/module.ts';
import type { DevicesService } from '../../devices/service.ts';
import type { ConsoleHttp } from '../http.ts';
import { FleetView } from './fleet.ts';
import { OperatorGuard } from './http.ts';
import type { FleetLive } from './live.ts';
import { registerOrganizationPages } from './organization-routes.ts';
import { OperatorRepository } from './repository.ts';
import { registerOperatorRoutes } from './routes.ts';
import { OperatorSessions, type AdminAuthenticate } from './service.ts';

export interface OperatorConsole {
  sessions: OperatorSessions;
  guard: OperatorGuard;
  fleet: FleetView;
  repo: OperatorRepository;
  devices: DevicesService;
  billing: BillingModule;
  audit: OperatorAudit;
  http: ConsoleHttp;
  clock: Clock;
  /** The fleet's live view, set when the routes are registered (tests drive its tick). */
  live: FleetLive | null;
  liveIntervalMs?: number;
}

export function buildOperatorConsole(deps: {
  db: Kysely<DB>;
  clock: Clock;
  http: ConsoleHttp;
  authenticate: AdminAuthenticate;
  devices: DevicesService;
  billing: BillingModule;
  audit: OperatorAudit;
  /** Whether a request carries a live organization console session. */
  organizationSession: (request: FastifyRequest) => Promise<boolean>;
}): OperatorConsole {
  const repo = new OperatorRepository(deps.db);
  const sessions = new OperatorSessions({ repo, clock: deps.clock, authenticate: deps.authenticate });
  return {
    sessions,
    guard: new OperatorGuard({ sessions, http: deps.http, organizationSession: deps.organizationSession }),
    fleet: new FleetView({ repo, devices: deps.devices, clock: deps.clock }),
    repo,
    devices: deps.devices,
    billing: deps.billing,
    audit: deps.audit,
    http: deps.http,
    clock: deps.clock,
    live: null,
  };
}

export function registerOperatorConsole(app: App, operator: OperatorConsole): void {
  registerOperatorRoutes(app, operator);
  registerOrganizationPages(app, operator);
}
