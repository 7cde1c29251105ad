// The console at /console: sign-in and sign-up, the dashboard, the consent page and grants, the
// operator console, and the API route that decides a consent with the session.
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { ConnectionCap } from '../../http/connection-caps.ts';
import type { Invoker } from '../../operations/invoke.ts';
import type { App } from '../../http/types.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Mailer } from '../../lib/mailer.ts';
import type { BillingModule } from '../billing/module.ts';
import type { CellsService } from '../cells/service.ts';
import type { CodesService } from '../codes/service.ts';
import type { PodOperations } from '../pods/operations.ts';
import type { IgnoreService } from '../pods/ignore-service.ts';
import type { EventsModule } from '../events/module.ts';
import type { MessagingModule } from '../messages/module.ts';
import type { OAuthService } from '../oauth/service.ts';
import type { OrganizationsService } from '../organizations/service.ts';
import type { WebhooksModule } from '../webhooks/module.ts';
import { registerBillingPages } from './account/billing-routes.ts';
import { registerKeyPages } from './account/keys-routes.ts';
import { registerWebhookPages } from './account/webhooks-routes.ts';
import { registerCellsScript, registerConversationPages } from './conversations/routes.ts';
import { registerMessageSearchPages } from './messages/routes.ts';
import { registerCodesPages } from './codes/routes.ts';
import { registerPodPages } from './pods/routes.ts';
import { registerContactListPages } from './pods/list-routes.ts';
import { registerCellManagement } from './conversations/manage.ts';
import { registerSignUpPages } from './sign-up.ts';
import { buildOperatorConsole, registerOperatorConsole } from './operator/module.ts';
import { consoleGuard } from './guard.ts';
import { signedInScope } from './binder.ts';
import { registerSessionConsentRoute } from './consent-session-route.ts';
import { consoleHttp } from './http.ts';
import { ConsoleRepository } from './repository.ts';
import { registerConsentPages, registerConsoleRoutes } from './routes.ts';
import { registerConsoleErrorPages } from './error-pages.ts';
import { ConsoleService } from './service.ts';
import { isLoopbackUrl } from '../../config.ts';
import { mailNoticeOf } from './mail-notice.ts';

type OperatorDeps = Parameters<typeof buildOperatorConsole>[0];

/** The services the dashboard shows and acts through (the same ones the API uses). */
export interface DashboardServices {
  cells: CellsService;
  messaging: MessagingModule;
  eventing: EventsModule;
  webhooking: WebhooksModule;
  organizations: OrganizationsService;
  billing: BillingModule;
  pods: PodOperations;
  codes: CodesService;
  ignoredOn: IgnoreService['ignoredOn'];
  /** The operations' one path: every form calls its operation through it. */
  invoker: Invoker;
}

export type ConsoleModule = ReturnType<typeof build>;

export function build(deps: {
  db: Kysely<DB>;
  clock: Clock;
  mailer: Mailer;
  log: FastifyBaseLogger;
  oauth: OAuthService;
  consoleUrl: string;
  baseUrl: string;
  dashboard: DashboardServices;
  /** Concurrent live views (Server-Sent Events) per organization. */
  liveViews: ConnectionCap;
  /** The operator console's sign-in checks admin tokens as the admin surface does; it shows the phones. */
  operator: Pick<OperatorDeps, 'authenticate' | 'tokenActive' | 'devices' | 'audit' | 'operations'>;
}) {
  const { db, clock, mailer, dashboard } = deps;
  const service = new ConsoleService({
    ...deps,
    repo: new ConsoleRepository(db),
    organizations: dashboard.organizations,
  });
  const http = consoleHttp(deps.consoleUrl, deps.baseUrl);
  const guard = consoleGuard(service, http);
  // Whether codes are mailed (SMTP) or kept in the dev outbox: the pages that ask for a code say which.
  const mailed = !mailer.outbox;
  return {
    console: service,
    oauth: deps.oauth,
    clock,
    http,
    guard,
    dashboard,
    liveViews: deps.liveViews,
    mailed,
    mailNotice: mailNoticeOf(mailer, isLoopbackUrl(deps.baseUrl)),
    /** The operator console at /console/operator (its own sign-in and sessions). */
    operator: buildOperatorConsole({
      ...deps.operator,
      db,
      clock,
      http,
      invoker: dashboard.invoker,
      billing: dashboard.billing,
      organizationSession: async (request) => (await guard.session(request)) !== null,
      mailed,
    }),
  };
}

export function register(app: App, module: ConsoleModule): void {
  registerConsoleErrorPages(app);
  registerConsoleRoutes(app, module);
  registerCellsScript(app);
  registerSignUpPages(app, module);
  registerSessionConsentRoute(app, module);
  registerOperatorConsole(app, module.operator);
  signedInScope(app, module.guard, (scope) => {
    registerConversationPages(scope, module);
    registerCellManagement(scope, module);
    registerWebhookPages(scope, module);
    registerKeyPages(scope, module);
    registerBillingPages(scope, module);
    registerMessageSearchPages(scope, module);
    registerCodesPages(scope, module);
    registerConsentPages(scope, module);
    registerPodPages(scope, module);
    registerContactListPages(scope, module);
  });
}
