// The composition root. buildApp(deps) builds each module (its services), wires the hooks between
// modules where they can be seen, registers the cross-cutting HTTP conventions, then every
// module's routes, then the background loops. Used by main.ts and by the tests; everything with
// side effects arrives through deps.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { devMailer, smtpMailer, type Mailer } from './lib/mailer.ts';
import { registerAuth } from './http/auth.ts';
import { IdempotencyStore, registerIdempotency } from './http/idempotency.ts';
import { registerOpenApi } from './http/openapi.ts';
import { MemoryRateLimiter, rateLimitPolicy, registerRateLimit, type RateLimiter } from './http/rate-limit.ts';
import { createServer } from './http/server.ts';
import * as adminModule from './modules/admin/module.ts';
import * as billingModule from './modules/billing/module.ts';
import * as cellsModule from './modules/cells/module.ts';
import * as consoleModule from './modules/console/module.ts';
import * as devicesModule from './modules/devices/module.ts';
import * as docsModule from './modules/docs/module.ts';
import * as eventsModule from './modules/events/module.ts';
import * as mcpModule from './modules/mcp/module.ts';
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
import { EVENTS_PRUNE_INTERVAL_MS, eventsPruneWorker } from './workers/events-prune.ts';
import { IDEMPOTENCY_PRUNE_INTERVAL_MS } from './workers/idempotency-prune.ts';
import { CYCLE_JOBS_INTERVAL_MS } from './workers/cycle-jobs.ts';
import { loop, type Loop } from './workers/loop.ts';
import { MESSAGE_LEASES_INTERVAL_MS, messageLeasesWorker } from './workers/message-leases.ts';
import { PRESENCE_INTERVAL_MS, presenceWorker } from './workers/presence.ts';
import { WebhookDeliveryWorker } from './workers/webhook-delivery.ts';

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
}

export async function buildApp(deps: AppDeps) {
  const { config, database } = deps;
  const { db } = database;
  const clock = deps.clock ?? systemClock;
  const app = createServer(config, clock, deps.logger);
  await registerOpenApi(app, config);

  // Modules, each built from what it needs.
  const { admin } = adminModule.build({ db, clock, bootstrapToken: config.adminToken });
  const mailer = deps.mailer ?? (config.smtpUrl ? await smtpMailer(config.smtpUrl, config.smtpFrom) : devMailer((mail) => admin.keepMail(mail), app.log));
  const { organizations } = organizationsModule.build({ db, clock, mailer });
  const eventing = eventsModule.build({
    database,
    clock,
    log: app.log,
    authenticate: (token) => organizations.authenticate(token),
    pollMs: deps.eventsPollMs,
    streamOptions: deps.eventStream,
  });
  const { events } = eventing;
  const { devices } = devicesModule.build({ db, clock });
  const { cells } = cellsModule.build({ db, clock, devices, events });
  const messaging = messagesModule.build({ db, clock, events, cells, devices });
  const webhooking = webhooksModule.build({ database, clock, events, allowPrivate: config.webhooksAllowPrivate, options: deps.webhooks });
  const { webhooks } = webhooking;
  const podding = podsModule.build({ db, clock, events, cells, devices, messages: messaging.messages, log: app.log });
  const billing = await billingModule.build({ database, clock, config, cells, events });
  const rateLimit = rateLimitPolicy(config);
  const status = statusModule.build({ cells, messages: messaging.messages, webhooks, rateLimit, billing: billing.billing });
  const idempotency = new IdempotencyStore(database, clock);
  const oauthing = oauthModule.build({ db, clock, baseUrl: config.baseUrl, consoleUrl: config.consoleUrl, allScopes: ALL_SCOPES, options: deps.oauth, pgClient: database.clientConfig, log: app.log });
  const { oauth } = oauthing;
  const mcp = mcpModule.build({ cells, messages: messaging.messages, status: status.status, events, idempotency, clock, version: VERSION, payments: billing.payments, endpointUrl: `${config.baseUrl}/mcp` });
  const metrics = metricsModule.build({ db, clock, stream: eventing.stream, metricsToken: config.metricsToken });
  const consoling = consoleModule.build({
    db, clock, mailer, log: app.log, oauth, consoleUrl: config.consoleUrl, baseUrl: config.baseUrl,
    dashboard: { cells, messaging, eventing, webhooking, organizations, billing, idempotency },
  });

  // Hooks between modules, each run inside the transaction of the change that triggers it.
  devices.setHooks({
    added: async (tx) => void (await cells.pairOldest(tx)),
    afterAdded: async () => void (await cells.fillProvisioning()),
    presenceChanged: (tx, device, online) => cells.presenceChanged(tx, device, online),
  });
  cells.onRelease((tx, cell) => messaging.delivery.failOpenMessagesOfCell(tx, cell.id));
  events.onEmit((tx, envelope) => webhooks.fanOut(tx, envelope));
  // Billing admits cell creates and charges sends in their transactions, and refunds what never went out.
  cells.useAdmission((tx, organizationId, cellId, options) => billing.enforcement.admitCell(tx, organizationId, cellId, options.tier));
  messaging.messages.useCharges(billing.enforcement);
  messaging.delivery.useCharges(billing.enforcement);
  // Inbound texts and default listings consult the cell's and its pod's ignore lists.
  messaging.messages.useIgnoreList(podding.ignore);
  messaging.inbound.useIgnoreList(podding.ignore);
  // OAuth access tokens are agent credentials too (routes, the event stream).
  organizations.useAccessTokens((token, resource) => oauth.authenticate(token, resource));

  // Cross-cutting HTTP conventions, in the order they run: credential, rate limit, idempotency,
  // then the completion of billing's 402s.
  registerAuth(app, {
    agent: (token, resource) => organizations.authenticate(token, resource),
    admin: (token) => admin.authenticate(token),
    device: (key) => devices.authenticate(key),
  }, { resourceMetadata: oauthing.resourceMetadata });
  const limiter = deps.rateLimiter ?? (config.redisUrl ? new (await import('./http/redis-rate-limit.ts')).RedisRateLimiter(config.redisUrl) : new MemoryRateLimiter());
  registerRateLimit(app, { limiter, ...rateLimit, now: () => clock.now().getTime() });
  registerIdempotency(app, idempotency);
  billingModule.registerConventions(app, billing, config);

  // Routes.
  metricsModule.register(app, metrics);
  systemModule.register(app, { database });
  docsModule.register(app, { config });
  organizationsModule.register(app, { organizations });
  adminModule.register(app, { admin });
  webhooksModule.register(app, webhooking);
  devicesModule.register(app, { devices });
  cellsModule.register(app, { cells });
  messagesModule.register(app, messaging);
  podsModule.register(app, podding);
  statusModule.register(app, status);
  billingModule.register(app, billing);
  oauthModule.register(app, oauthing, { docsUrl: config.docsUrl });
  consoleModule.register(app, consoling);
  await eventsModule.register(app, eventing);
  await mcpModule.register(app, mcp, { baseUrl: config.baseUrl });

  // Background loops run in every process (their work is claimed in the database); tests call
  // the ticks themselves.
  const webhookWorker = new WebhookDeliveryWorker({ deliverer: webhooking.deliverer, webhooks, events, log: app.log, pollMs: deps.webhooks?.pollMs, concurrency: deps.webhooks?.concurrency });
  const messageLeases = messageLeasesWorker({ delivery: messaging.delivery });
  const presence = presenceWorker({ devices, cells });
  const eventsPrune = eventsPruneWorker({ events });
  const billingPeriods = billingPeriodsWorker(billing);
  const loops: Loop[] = [
    webhookWorker,
    loop('message-leases', MESSAGE_LEASES_INTERVAL_MS, () => messageLeases.tick(), app.log),
    loop('presence', PRESENCE_INTERVAL_MS, () => presence.tick(), app.log),
    loop('events-prune', EVENTS_PRUNE_INTERVAL_MS, () => eventsPrune.tick(), app.log),
    loop('idempotency-prune', IDEMPOTENCY_PRUNE_INTERVAL_MS, () => idempotency.pruneExpired(), app.log),
    loop('billing-periods', BILLING_PERIODS_INTERVAL_MS, () => billingPeriods.tick(), app.log),
    loop('cycle-jobs', CYCLE_JOBS_INTERVAL_MS, () => podding.cycleWorker.tick(), app.log),
  ];
  if (deps.workers ?? true) app.addHook('onReady', async () => loops.forEach((l) => l.start()));
  app.addHook('onClose', async () => {
    await Promise.all(loops.map((l) => l.stop()));
    await limiter.close();
    mailer.close();
  });

  const services = { organizations, oauth, admin, ...billing, billingPeriods, idempotency, events, webhooks, webhookWorker, cells, devices, ...messaging, messageLeases, ...podding };
  return { app, services };
}

export type Services = Awaited<ReturnType<typeof buildApp>>['services'];
