// The composition root. buildApp(deps) builds each module (its services, its required ports, its
// background loops), wires the ports between modules in one table (wirePorts) and refuses to start
// while one is unwired, registers the cross-cutting HTTP conventions, then every module's routes,
// then starts the loops. Used by main.ts and by the tests; everything with side effects arrives
// through deps.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { devMailer, smtpMailer, type Mailer } from './lib/mailer.ts';
import { refuseUnwired, wire, type Wire } from './lib/ports.ts';
import { registerAuth } from './http/auth.ts';
import { registerAdmission } from './operations/admit.ts';
import { setProblemEnricher } from './http/errors.ts';
import { Invoker } from './operations/invoke.ts';
import { restBinder } from './operations/rest.ts';
import { StoredCaps, type StoredResource } from './operations/stored-caps.ts';
import { connectionCaps } from './http/connection-caps.ts';
import { IdempotencyStore } from './operations/idempotency.ts';
import { registerOpenApi } from './http/openapi.ts';
import { MemoryRateLimiter, registerRateLimit, type RateLimiter } from './http/rate-limit.ts';
import { rateLimitPolicy } from './lib/rate-limit-policy.ts';
import { createServer } from './http/server.ts';
import * as adminModule from './modules/admin/module.ts';
import * as billingModule from './modules/billing/module.ts';
import * as cellsModule from './modules/cells/module.ts';
import * as codesModule from './modules/codes/module.ts';
import * as consoleModule from './modules/console/module.ts';
import * as devicesModule from './modules/devices/module.ts';
import * as smsgateModule from './modules/smsgate/module.ts';
import * as docsModule from './modules/docs/module.ts';
import * as eventsModule from './modules/events/module.ts';
import * as mcpModule from './modules/mcp/module.ts';
import { waitOperations } from './modules/mcp/operations.ts';
import { agentPodOperations } from './modules/pods/agent-operations.ts';
import type { StreamOptions } from './modules/events/stream.ts';
import * as messagesModule from './modules/messages/module.ts';
import * as metricsModule from './modules/metrics/module.ts';
import * as oauthModule from './modules/oauth/module.ts';
import * as organizationsModule from './modules/organizations/module.ts';
import { ALL_SCOPES } from './modules/organizations/service.ts';
import * as podsModule from './modules/pods/module.ts';
import * as statusModule from './modules/status/module.ts';
import * as systemModule from './modules/system/module.ts';
import { VERSION } from './modules/system/routes.ts';
import type { WebhookOptions } from './modules/webhooks/delivery.ts';
import * as webhooksModule from './modules/webhooks/module.ts';
import { BILLING_PERIODS_INTERVAL_MS, billingPeriodsWorker } from './workers/billing-periods.ts';
import { IDEMPOTENCY_PRUNE_INTERVAL_MS } from './workers/idempotency-prune.ts';
import { OAUTH_PRUNE_INTERVAL_MS } from './modules/oauth/service.ts';
import type { Background } from './lib/background.ts';
import { asLoop } from './workers/loop.ts';

export interface AppDeps {
  config: Config;
  database: Database;
  clock?: Clock;
  /** Defaults to SMTP when configured, else the dev outbox. */
  mailer?: Mailer;
  rateLimiter?: RateLimiter;
  /** A pino logger, or false for silence (tests). Defaults to JSON logs at config.logLevel. */
  logger?: FastifyBaseLogger | false;
  /** Run background loops (src/workers) on their timers; tests drive the ticks themselves. */
  workers?: boolean;
  /** Event stream limits and ping period (tests shrink them). */
  eventStream?: Partial<StreamOptions>;
  /** Safety-net poll of the event outbox (tests lengthen it to prove the NOTIFY path). */
  eventsPollMs?: number;
  /** Webhook egress, DNS and timing (tests and benchmarks replace them). */
  webhooks?: WebhookOptions;
  /** DNS and egress of OAuth Client ID Metadata Document fetches (tests replace them). */
  oauth?: oauthModule.OAuthOptions;
  /** The caps on what an organization stores (contract §2); tests shrink them. */
  storedCaps?: Partial<Record<StoredResource, number>>;
  /** Chooses which wires of wirePorts() connect: the start-up check's test leaves one out. */
  wires?: (wires: readonly Wire[]) => readonly Wire[];
}

/**
 * Every port a module leaves to another, wired in one table, each run inside the transaction of
 * the change that triggers it where it is a hook. buildApp connects them all, then refuses to
 * start while any module port is unwired.
 */
function wirePorts(m: {
  devices: devicesModule.DevicesModule;
  cells: cellsModule.CellsModule;
  messaging: messagesModule.MessagingModule;
  eventing: eventsModule.EventsModule;
  webhooks: webhooksModule.WebhooksModule;
  pods: podsModule.PodsModule;
  organizations: organizationsModule.OrganizationsModule;
  billing: billingModule.BillingModule;
  oauth: oauthModule.OAuthModule;
}): Wire[] {
  const { devices } = m.devices;
  const { cells } = m.cells;
  const { messages, delivery, inbound, scheduled } = m.messaging;
  const { enforcement } = m.billing;
  return [
    wire(devices.ports.hooks, {
      added: async (tx) => void (await cells.pairOldest(tx)),
      afterAdded: async () => void (await cells.fillProvisioning()),
      presenceChanged: (tx, device, online) => cells.presenceChanged(tx, device, online),
      capabilitiesChanged: (tx, device) => cells.capabilitiesChanged(tx, device),
      stateChanged: (tx, before, after) => cells.deviceStateChanged(tx, before, after),
    }),
    // The operator's webhooks hear of phones going offline, low, unhealthy (contract §11).
    wire(devices.ports.operatorEvents, (tx, type, device) => m.webhooks.webhooks.emitOperatorEvent(tx, type, device)),
    // A released cell's open messages fail; its drafts and lists go with it (their room comes back).
    wire(cells.ports.released, async (tx, cell) => {
      await delivery.failOpenMessagesOfCell(tx, cell.id);
      await m.pods.forgetScope(tx, { kind: 'cell', id: cell.id, organizationId: cell.organization_id });
    }),
    // Each phone's health follows what became of its sends (contract §11).
    wire(delivery.ports.outcomes, { record: (tx, outcome) => devices.recordOutcome(tx, outcome) }),
    wire(m.eventing.events.ports.emitted, (tx, envelope) => m.webhooks.webhooks.fanOut(tx, envelope)),
    // Billing admits cell creates and charges sends in their transactions, and refunds what never went out.
    wire(cells.ports.admission, (tx, organizationId, cellId, options) =>
      enforcement.admitCell(tx, organizationId, cellId, options.tier, () => devices.anyFree(tx)),
    ),
    wire(messages.ports.charges, enforcement),
    wire(delivery.ports.charges, enforcement),
    wire(scheduled.ports.charges, enforcement),
    wire(m.pods.pods.ports.sendRefusals, (organizationIds) => enforcement.sendRefusals(organizationIds)),
    // Inbound texts and default listings consult the cell's and its pod's ignore lists.
    wire(messages.ports.ignores, m.pods.ignore),
    wire(inbound.ports.ignores, m.pods.ignore),
    // OAuth access tokens are agent credentials too (routes, the event stream).
    wire(m.organizations.organizations.ports.accessTokens, (token, resource) =>
      m.oauth.oauth.authenticate(token, resource),
    ),
  ];
}

export async function buildApp(deps: AppDeps) {
  const { config, database } = deps;
  const { db } = database;
  const clock = deps.clock ?? systemClock;
  const app = createServer(config, clock, deps.logger);
  await registerOpenApi(app, config);

  // Modules, each built from what it needs.
  const administering = adminModule.build({ db, clock, bootstrapToken: config.adminToken });
  const { admin, audit } = administering;
  const mailer =
    deps.mailer ??
    (config.smtpUrl
      ? await smtpMailer(config.smtpUrl, config.smtpFrom)
      : devMailer({ keep: (mail) => admin.keepMail(mail), latestTo: (to) => admin.latestMailTo(to) }, app.log));
  const organizing = organizationsModule.build({ db, clock, mailer });
  const { organizations } = organizing;
  // Long-lived connections per organization (and long-polls per device), counted in this process.
  const caps = connectionCaps(config);
  const eventing = eventsModule.build({
    database,
    clock,
    log: app.log,
    authenticate: (token) => organizations.authenticate(token),
    pollMs: deps.eventsPollMs,
    streamOptions: deps.eventStream,
    streamCap: caps.streams,
  });
  const { events } = eventing;
  const devicing = devicesModule.build({ db, clock, audit: audit.recordOperatorAction, baseUrl: config.baseUrl });
  const { devices } = devicing;
  const celling = cellsModule.build({ db, clock, devices, events });
  const { cells } = celling;
  const storedCaps = new StoredCaps(deps.storedCaps);
  const messaging = messagesModule.build({
    db,
    clock,
    events,
    cells,
    devices,
    storedCaps,
    pgClient: database.clientConfig,
    log: app.log,
  });
  const smsgating = smsgateModule.build({
    devices,
    enrollments: devicing.enrollments,
    delivery: messaging.delivery,
    inbound: messaging.inbound,
    clock,
    baseUrl: config.baseUrl,
    log: app.log,
  });
  const coding = codesModule.build({ db, clock, cells, arrivals: messaging.codeArrivals, waits: caps.mcpWaits });
  const webhooking = webhooksModule.build({
    database,
    clock,
    events,
    allowPrivate: config.webhooksAllowPrivate,
    options: deps.webhooks,
    log: app.log,
    audit: audit.recordOperatorAction,
    storedCaps,
  });
  const { webhooks } = webhooking;
  const podding = podsModule.build({
    db,
    clock,
    events,
    cells,
    devices,
    messages: messaging.messages,
    log: app.log,
    storedCaps,
  });
  const billing = await billingModule.build({
    database,
    clock,
    config,
    cells,
    events,
    audit: audit.recordOperatorAction,
    organizations,
  });
  const rateLimit = rateLimitPolicy(config);
  const status = statusModule.build({
    cells,
    messages: messaging.messages,
    webhooks,
    rateLimit,
    billing: billing.billing,
  });
  const idempotency = new IdempotencyStore(database, clock);
  // Every operation's one path (src/operations): admission, idempotency, run, 402 completion.
  const invoker = new Invoker(idempotency);
  const rest = restBinder(invoker, { baseUrl: config.baseUrl, docsUrl: config.docsUrl });
  const oauthing = oauthModule.build({
    db,
    clock,
    baseUrl: config.baseUrl,
    consoleUrl: config.consoleUrl,
    allScopes: ALL_SCOPES,
    options: deps.oauth,
    pgClient: database.clientConfig,
    log: app.log,
  });
  const { oauth } = oauthing;
  const mcp = mcpModule.build({
    operations: {
      cells: celling.operations,
      messages: messaging.operations,
      status: status.operations,
      waits: waitOperations({
        cells,
        messages: messaging.messages,
        codes: coding.codes,
        events,
        clock,
        waits: caps.mcpWaits,
      }),
      pods: { ...podding.operations, ...agentPodOperations({ ...podding, charges: billing.enforcement }) },
      webhooks: webhooking.operations,
      billing: billing.operations,
      organizations: organizing.operations,
    },
    payments: {
      settle: (organizationId, payload) => billing.x402.settlePayload(organizationId, payload),
      status: (organizationId) => billing.billing.status(organizationId),
    },
    invoker,
    version: VERSION,
    endpointUrl: `${config.baseUrl}/mcp`,
    db,
    clock,
  });
  const metrics = metricsModule.build({ db, clock, stream: eventing.stream, metricsToken: config.metricsToken });
  const consoling = consoleModule.build({
    db,
    clock,
    mailer,
    log: app.log,
    oauth,
    consoleUrl: config.consoleUrl,
    baseUrl: config.baseUrl,
    dashboard: {
      cells,
      messaging,
      eventing,
      webhooking,
      organizations,
      billing,
      codes: coding.codes,
      pods: podding.operations,
      ignoredOn: (organizationId, cellId, participant) => podding.ignore.ignoredOn(organizationId, cellId, participant),
      invoker,
    },
    liveViews: caps.liveViews,
    operator: {
      authenticate: (token) => admin.authenticate(token),
      tokenActive: (id) => admin.tokenActive(id),
      devices,
      audit,
      operations: {
        devices: devicing.operations,
        billing: billing.adminOperations,
        deposits: billing.depositOperations,
        webhooks: webhooking.operatorOperations,
        admin: administering.operations,
        enrollments: devicing.enrollmentOperations,
      },
    },
  });

  // The ports between modules (see wirePorts); a port left unwired refuses the start, naming it.
  const wires = wirePorts({
    devices: devicing,
    cells: celling,
    messaging,
    eventing,
    webhooks: webhooking,
    pods: podding,
    organizations: organizing,
    billing,
    oauth: oauthing,
  });
  for (const line of deps.wires ? deps.wires(wires) : wires) line.connect();
  refuseUnwired([devicing, celling, messaging, eventing, podding, organizing].flatMap((module) => module.ports));

  // Cross-cutting HTTP conventions, in the order they run: credential, admission, rate limit, then the
  // completion of billing's 402s (idempotency is the operations' invoke).
  registerAuth(
    app,
    {
      agent: (token, resource) => organizations.authenticate(token, resource),
      admin: (token) => admin.authenticate(token),
      device: (key, options) => devices.authenticate(key, options),
    },
    { resourceMetadata: oauthing.resourceMetadata },
  );
  registerAdmission(app);
  const limiter =
    deps.rateLimiter ??
    (config.redisUrl
      ? new (await import('./http/redis-rate-limit.ts')).RedisRateLimiter(config.redisUrl)
      : new MemoryRateLimiter());
  registerRateLimit(app, { limiter, ...rateLimit, now: () => clock.now().getTime() });
  billingModule.registerConventions(app, billing, invoker);
  // A REST route's 402 (one not bound from an operation) is completed by the same enrichers.
  setProblemEnricher(app, async (request, error) =>
    request.agent
      ? invoker.enrich(
          { principal: request.agent, resourceUrl: `${config.baseUrl}${request.url}`, headers: true },
          error,
        )
      : error,
  );

  // Routes.
  metricsModule.register(app, metrics);
  systemModule.register(app, { database });
  docsModule.register(app, { config });
  organizationsModule.register(app, organizing, rest);
  adminModule.register(app, administering, rest);
  webhooksModule.register(app, webhooking, rest);
  devicesModule.register(app, devicing, rest);
  cellsModule.register(app, celling, rest);
  messagesModule.register(app, messaging, { longPolls: caps.deviceLongPolls }, rest);
  smsgateModule.register(app, smsgating);
  codesModule.register(app, coding, rest);
  podsModule.register(app, podding, rest);
  statusModule.register(app, status, rest);
  billingModule.register(app, billing, rest);
  oauthModule.register(app, oauthing, { docsUrl: config.docsUrl, rest, limiter, now: () => clock.now().getTime() });
  consoleModule.register(app, consoling);
  await eventsModule.register(app, eventing);
  await mcpModule.register(app, mcp, { baseUrl: config.baseUrl });

  // Background loops run in every process (their work is claimed in the database); tests call
  // the ticks themselves. Each module hands over its own; billing's, oauth's and the idempotency
  // store's are built here.
  const billingPeriods = billingPeriodsWorker(billing);
  const background: Background[] = [
    ...webhooking.loops,
    ...messaging.loops,
    ...celling.loops,
    ...devicing.loops,
    ...eventing.loops,
    { name: 'idempotency-prune', intervalMs: IDEMPOTENCY_PRUNE_INTERVAL_MS, tick: () => idempotency.pruneExpired() },
    { name: 'oauth-prune', intervalMs: OAUTH_PRUNE_INTERVAL_MS, tick: () => oauth.prune() },
    { name: 'billing-periods', intervalMs: BILLING_PERIODS_INTERVAL_MS, tick: () => billingPeriods.tick() },
    ...podding.loops,
  ];
  const loops = background.map((work) => asLoop(work, app.log));
  if (deps.workers ?? true) app.addHook('onReady', async () => loops.forEach((l) => l.start()));
  app.addHook('onClose', async () => {
    await Promise.all(loops.map((l) => l.stop()));
    await limiter.close();
    mailer.close();
  });

  // Billing's operations are bound above; its services join the others under their own names.
  const {
    operations: _billingOperations,
    adminOperations: _admin,
    depositOperations: _deposits,
    ...billingServices
  } = billing;
  const services = {
    caps,
    organizations,
    oauth,
    admin,
    audit,
    ...billingServices,
    billingPeriods,
    idempotency,
    invoker,
    rest,
    events,
    webhooks,
    webhookWorker: webhooking.webhookWorker,
    cells,
    devices,
    enrollments: devicing.enrollments,
    smsgate: smsgating.smsgate,
    smsgateEvents: smsgating.events,
    messages: messaging.messages,
    delivery: messaging.delivery,
    inbound: messaging.inbound,
    messageLeases: messaging.messageLeases,
    codes: coding.codes,
    scheduledSends: messaging.scheduled,
    pods: podding.pods,
    drafts: podding.drafts,
    lists: podding.lists,
    ignore: podding.ignore,
    cycles: podding.cycles,
    cycleWorker: podding.cycleWorker,
    scopes: podding.scopes,
    podOperations: podding.operations,
    organizationOperations: organizing.operations,
    operatorConsole: consoling.operator,
  };
  return { app, services };
}

export type Services = Awaited<ReturnType<typeof buildApp>>['services'];
