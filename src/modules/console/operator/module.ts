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
import type { DeviceOperations } from '../../devices/operations.ts';
import type { BillingAdminOperations } from '../../billing/admin-operations.ts';
import type { DepositOperations } from '../../billing/deposits-operations.ts';
import type { EnrollmentOperations } from '../../devices/enrollment-operations.ts';
import type { Invoker } from '../../../operations/invoke.ts';
import type { ConsoleHttp } from '../http.ts';
import { FleetView } from './fleet.ts';
import { OperatorGuard } from './http.ts';
import type { FleetLive } from './live.ts';
import { registerOrganizationPages } from './organization-routes.ts';
import { registerInventoryPages } from './inventory.ts';
import { registerEnrollmentPages } from './enroll.ts';
import { registerOperatorWebhookPages } from './webhook-routes.ts';
import type { WebhookOperations } from '../../webhooks/operations.ts';
import type { OperatorContext } from '../../../operations/operation.ts';
import type { AdminOperations } from '../../admin/operations.ts';
import { registerOutboxPage } from './outbox.ts';
import { OperatorRepository } from './repository.ts';
import { Binder, signedInScope, type SectionOptions } from '../binder.ts';
import { capitalized } from '../account/shared.ts';
import { operatorMessagePage } from './layout.ts';
import { registerFleetPages, registerOperatorRoutes } from './routes.ts';
import { OperatorSessions, type AdminAuthenticate, type AdminTokenActive, type OperatorSession } from './service.ts';

/** The operator operations the console's actions call (through invoke, as the operator). */
export interface OperatorOperations {
  devices: DeviceOperations;
  billing: BillingAdminOperations;
  deposits: DepositOperations;
  /** The operator's webhook endpoints (/v1/admin/webhooks). */
  webhooks: WebhookOperations<OperatorContext>;
  /** The dev outbox (the Outbox page) and the audit log. */
  admin: AdminOperations;
  /** Enrollments of SMSGate phones (/v1/admin/devices/enrollments). */
  enrollments: EnrollmentOperations;
}

/** What the operator console's pages read and act through. */
export type OperatorConsole = ReturnType<typeof buildOperatorConsole>;

export function buildOperatorConsole(deps: {
  db: Kysely<DB>;
  clock: Clock;
  http: ConsoleHttp;
  authenticate: AdminAuthenticate;
  tokenActive: AdminTokenActive;
  devices: DevicesService;
  billing: BillingModule;
  audit: OperatorAudit;
  invoker: Invoker;
  operations: OperatorOperations;
  /** Whether a request carries a live organization console session. */
  organizationSession: (request: FastifyRequest) => Promise<boolean>;
  /** Whether mail is sent by SMTP (else it is kept in the dev outbox). */
  mailed: boolean;
}) {
  const { db, authenticate, tokenActive, organizationSession, ...shared } = deps;
  const repo = new OperatorRepository(db);
  const sessions = new OperatorSessions({ repo, clock: deps.clock, authenticate, tokenActive });
  return {
    ...shared,
    repo,
    sessions,
    guard: new OperatorGuard({ sessions, http: deps.http, organizationSession }),
    fleet: new FleetView({ repo, devices: deps.devices, clock: deps.clock }),
    /** The fleet's live view, set when the routes are registered (tests drive its tick). */
    live: null as FleetLive | null,
  };
}

/**
 * A section of the operator console: its pages take the session, its calls invoke as the session's
 * admin token (invoke admits, the service records the action), its unknown thing's 404 says `gone`.
 */
export const operatorBinder = (
  scope: App,
  operator: OperatorConsole,
  { gone, ...options }: Omit<SectionOptions<OperatorSession, never>, 'notFound'> & { gone: string },
) =>
  new Binder<OperatorSession, OperatorSession, never>(
    scope,
    {
      context: (session) => session,
      call: async (session, op, input) => {
        const principal = { credentialType: 'operator_session' as const, tokenId: session.adminTokenId };
        const outcome = await operator.invoker.invoke(op, principal, input);
        if (outcome.replayed) throw new Error('an operator operation never replays');
        return outcome.value;
      },
      messagePage: operatorMessagePage,
    },
    {
      ...options,
      notFound: (session, missing) =>
        operatorMessagePage(session, `${capitalized(missing)} not found`, gone, options.back),
    },
  );

export function registerOperatorConsole(app: App, operator: OperatorConsole): void {
  registerOperatorRoutes(app, operator);
  signedInScope(app, operator.guard, (scope) => {
    registerFleetPages(scope, operator);
    registerInventoryPages(scope, operator);
    registerEnrollmentPages(scope, operator);
    registerOutboxPage(scope, operator);
    registerOrganizationPages(scope, operator);
    registerOperatorWebhookPages(scope, operator);
  });
}
