// buildApp(deps): external plugins, then cross-cutting HTTP conventions, then module routes.
// Used by main.ts and by the tests; everything with side effects arrives through deps.
import { maxHeaderSize } from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { newId } from './lib/ids.ts';
import { devMailer, smtpMailer, type Mailer } from './lib/mailer.ts';
import { registerAuth } from './http/auth.ts';
import { registerErrorHandling } from './http/errors.ts';
import { clientErrorHandler, frameworkErrorHandler, registerDraining } from './http/client-errors.ts';
import { IdempotencyStore, registerIdempotency } from './http/idempotency.ts';
import { MemoryRateLimiter, RedisRateLimiter, registerRateLimit, type RateLimiter } from './http/rate-limit.ts';
import { lazyChildLogger } from './http/lazy-logger.ts';
import { registerRequestId, requestIdFor } from './http/request-id.ts';
import { Problem } from './http/schemas.ts';
import type { App } from './http/types.ts';
import { registerValidation } from './http/validation.ts';
import { loop, type Loop } from './workers/loop.ts';
import { presenceWorker } from './workers/presence.ts';
import { messageLeasesWorker, MESSAGE_LEASES_INTERVAL_MS, type MessageLeasesWorker } from './workers/message-leases.ts';
import { buildMessaging, registerMessaging } from './modules/messages/module.ts';
import type { DeliveryService } from './modules/messages/delivery.ts';
import type { MessagesService } from './modules/messages/service.ts';
import { CellsRepository } from './modules/cells/repository.ts';
import { registerCellRoutes } from './modules/cells/routes.ts';
import { CellsService } from './modules/cells/service.ts';
import { DevicesRepository } from './modules/devices/repository.ts';
import { registerDeviceRoutes } from './modules/devices/routes.ts';
import { DevicesService } from './modules/devices/service.ts';
import { EventsRepository } from './modules/events/repository.ts';
import { EventsService } from './modules/events/service.ts';
import { registerEventRoutes } from './modules/events/routes.ts';
import { EventStreamHub, selectBearerProtocol, type StreamOptions } from './modules/events/stream.ts';
import { eventsPruneWorker, EVENTS_PRUNE_INTERVAL_MS } from './workers/events-prune.ts';
import websocket from '@fastify/websocket';
import type { WebhookOptions } from './modules/webhooks/delivery.ts';
import { buildWebhooks } from './modules/webhooks/module.ts';
import type { WebhooksService } from './modules/webhooks/service.ts';
import type { WebhookDeliveryWorker } from './workers/webhook-delivery.ts';
import { registerWebhookRoutes } from './modules/webhooks/routes.ts';
import { AdminRepository } from './modules/admin/repository.ts';
import { registerAdminRoutes } from './modules/admin/routes.ts';
import { AdminService } from './modules/admin/service.ts';
import { OrganizationsRepository } from './modules/organizations/repository.ts';
import { registerOrganizationRoutes } from './modules/organizations/routes.ts';
import { OrganizationsService } from './modules/organizations/service.ts';
import { registerAgentStatusRoutes } from './modules/status/routes.ts';
import { AgentStatusService } from './modules/status/service.ts';
import { registerSystemRoutes, VERSION } from './modules/system/routes.ts';

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
}

export interface Services {
  organizations: OrganizationsService;
  admin: AdminService;
  idempotency: IdempotencyStore;
  events: EventsService;
  webhooks: WebhooksService;
  /** Tests call deliverDue() on it (workers are off there). */
  webhookWorker: WebhookDeliveryWorker;
  cells: CellsService;
  devices: DevicesService;
  messages: MessagesService;
  delivery: DeliveryService;
  /** Tests call tick() with the manual clock (workers are off there). */
  messageLeases: MessageLeasesWorker;
}

const SECURITY_BY_SURFACE = {
  public: [],
  agent: [{ bearer: [] }],
  admin: [{ admin: [] }],
  device: [{ phoneKey: [] }],
} as const;

const BODY_LIMIT = 256 * 1024;

export async function buildApp(deps: AppDeps): Promise<{ app: App; services: Services }> {
  const { config, database } = deps;
  const clock = deps.clock ?? systemClock;
  const app = Fastify({
    ...(deps.logger === false
      ? { logger: false }
      : deps.logger
        ? { loggerInstance: deps.logger }
        : {
            logger: {
              level: config.logLevel,
              redact: ['req.headers.authorization', 'req.headers["x-phone-key"]', 'mail.text'],
            },
          }),
    genReqId: (raw) => requestIdFor(raw, clock),
    childLoggerFactory: lazyChildLogger,
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    trustProxy: false,
    // A path parameter cannot outgrow the URL, which Node's header limit bounds (431): long ids
    // reach the credential check (401) and the route's validation instead of a 414 before them.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: maxHeaderSize },
    // Slow senders (a body trickled byte by byte) are cut with a 408; only receiving the request
    // counts, so long-polls and WebSockets are not. Node checks the deadlines every interval.
    requestTimeout: config.requestTimeoutMs,
    http: {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, config.headersTimeoutMs),
    },
    frameworkErrors: frameworkErrorHandler(config.docsUrl),
    clientErrorHandler: clientErrorHandler(config.docsUrl, () => newId('req', clock)),
    // registerDraining answers requests during close with a problem+json 503 instead.
    return503OnClosing: false,
  }).withTypeProvider<TypeBoxTypeProvider>();
  registerDraining(app, config.docsUrl);

  app.removeContentTypeParser('text/plain');
  registerValidation(app);
  registerErrorHandling(app, config.docsUrl);
  app.addSchema(Problem);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Cellgate API',
        version: VERSION,
        description: 'Phone lines for software agents: cells (phone lines on real Android phones), messages, events, pods and billing.',
      },
      servers: [{ url: config.baseUrl }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'API key (cg_live_...) or OAuth access token (cg_at_...).' },
          admin: { type: 'http', scheme: 'bearer', description: 'Admin token (cg_adm_...).' },
          phoneKey: { type: 'apiKey', in: 'header', name: 'X-Phone-Key', description: 'Device key (cg_dev_...).' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' }, uiHooks: {} });

  // Every route states its surface; the OpenAPI security and the default error follow from it.
  app.addHook('onRoute', (route) => {
    const surface = route.config?.auth;
    if (!surface) return;
    const schema = (route.schema ??= {}) as Record<string, unknown>;
    schema.security = SECURITY_BY_SURFACE[surface];
    const response = (schema.response ??= {}) as Record<string, unknown>;
    // 4xx/5xx, not `default`: a default schema would also serialize undeclared 2xx bodies as Problem.
    response['4xx'] ??= { description: 'Client error', content: { 'application/problem+json': { schema: { $ref: 'Problem#' } } } };
    response['5xx'] ??= { description: 'Server error', content: { 'application/problem+json': { schema: { $ref: 'Problem#' } } } };
  });

  registerRequestId(app);

  const limiter = deps.rateLimiter ?? (config.redisUrl ? new RedisRateLimiter(config.redisUrl) : new MemoryRateLimiter());
  const adminRepo = new AdminRepository(database.db);
  const admin = new AdminService({ repo: adminRepo, clock, bootstrapToken: config.adminToken });
  const mailer = deps.mailer ?? (config.smtpUrl ? smtpMailer(config.smtpUrl, config.smtpFrom) : devMailer((mail) => admin.keepMail(mail), app.log));
  const organizations = new OrganizationsService({ repo: new OrganizationsRepository(database.db), clock, mailer });
  const idempotency = new IdempotencyStore(database, clock);
  const events = new EventsService({ repo: new EventsRepository(database.db, database.dialect), clock, log: app.log, pgClient: database.clientConfig, pollMs: deps.eventsPollMs });
  // The shared event reader (and LISTEN on PostgreSQL) runs in every process, workers or not.
  app.addHook('onReady', () => events.start());
  app.addHook('onClose', () => events.stop());
  const devices = new DevicesService({ repo: new DevicesRepository(database.db), clock });
  const cells = new CellsService({ repo: new CellsRepository(database.db), devices, events, clock });
  const messaging = buildMessaging({ db: database.db, clock, events, cells, devices });
  const { webhooks, webhookWorker } = buildWebhooks({ database, clock, events, allowPrivate: config.webhooksAllowPrivate, log: app.log, options: deps.webhooks });

  // Background loops run in every process (their work is claimed in the database); tests call
  // the ticks themselves.
  const messageLeases = messageLeasesWorker({ delivery: messaging.delivery });
  const presence = presenceWorker({ devices, cells });
  const eventsPrune = eventsPruneWorker({ events });
  const loops: Loop[] = [
    webhookWorker,
    loop('message-leases', MESSAGE_LEASES_INTERVAL_MS, () => messageLeases.tick(), app.log),
    loop('presence', 5000, () => presence.tick(), app.log),
    loop('events-prune', EVENTS_PRUNE_INTERVAL_MS, () => eventsPrune.tick(), app.log),
    loop('idempotency-prune', 10 * 60_000, () => idempotency.pruneExpired(), app.log),
  ];
  if (deps.workers ?? true) app.addHook('onReady', async () => loops.forEach((l) => l.start()));

  registerAuth(app, {
    agent: (token) => organizations.authenticate(token),
    admin: (token) => admin.authenticate(token),
    device: (key) => devices.authenticate(key),
  });
  registerRateLimit(app, {
    limiter,
    perCredential: config.rateLimit > 0 ? { rate: config.rateLimit, burst: Math.max(1, config.rateLimitBurst) } : null,
    signUpPerIp: config.signUpsPerHourPerIp > 0 ? { rate: config.signUpsPerHourPerIp / 3600, burst: config.signUpsPerHourPerIp } : null,
    now: () => clock.now().getTime(),
  });
  registerIdempotency(app, idempotency);

  // One line per request (Fastify's own two are off); skipped entirely above info level.
  if (['trace', 'debug', 'info'].includes(app.log.level)) {
    app.addHook('onResponse', (request, reply, done) => {
      request.log.info({ method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
      done();
    });
  }

  registerSystemRoutes(app, database);
  registerOrganizationRoutes(app, organizations);
  registerAdminRoutes(app, admin);
  registerWebhookRoutes(app, webhooks);
  registerDeviceRoutes(app, devices);
  registerCellRoutes(app, cells);
  registerMessaging(app, messaging);
  registerAgentStatusRoutes(app, new AgentStatusService({ cells, messages: messaging.messages, webhooks, config }));
  const eventStream = new EventStreamHub({ events, authenticate: (token) => organizations.authenticate(token), options: deps.eventStream, log: app.log });
  // Drain first (1001): @fastify/websocket's own preClose closes sockets without a code. Other
  // WebSocket routes reuse this registration.
  app.addHook('preClose', async () => eventStream.drain());
  // In a context of its own: the plugin's per-request hooks then run on the stream route only.
  await app.register(async (streams) => {
    await streams.register(websocket, { options: { maxPayload: 4096, handleProtocols: selectBearerProtocol } });
    registerEventRoutes(streams, eventStream);
  });

  app.addHook('onClose', async () => {
    await Promise.all(loops.map((l) => l.stop()));
    await limiter.close();
    mailer.close();
  });

  return { app, services: { organizations, admin, idempotency, events, webhooks, webhookWorker, cells, devices, ...messaging, messageLeases } };
}
