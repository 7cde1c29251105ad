// Webhooks: endpoints (routes), the fan-out of events into deliveries, and the deliverer the
// delivery worker (src/workers/webhook-delivery.ts, a loop this build hands to the composition
// root) drives.
import type { StoredCaps } from '../../operations/stored-caps.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/database.ts';
import type { Clock } from '../../lib/clock.ts';
import { systemLookup } from '../../lib/ssrf.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { WebhookDeliveryWorker } from '../../workers/webhook-delivery.ts';
import type { EventsService } from '../events/service.ts';
import type { RecordOperatorAction } from '../admin/audit.ts';
import { DEFAULT_TIMEOUT_MS, WebhookDeliverer, type WebhookOptions } from './delivery.ts';
import { httpEgress } from './egress.ts';
import { OPERATOR_ENDPOINTS, organizationWebhookOperations, webhookOperations } from './operations.ts';
import { WebhooksRepository } from './repository.ts';
import { registerWebhookRoutes } from './routes.ts';
import { WebhooksService } from './service.ts';

export type WebhooksModule = ReturnType<typeof build>;

export function build(deps: {
  database: Database;
  clock: Clock;
  events: EventsService;
  allowPrivate: boolean;
  options?: WebhookOptions;
  log: FastifyBaseLogger;
  /** The operator audit log, for changes of the operator's endpoints. */
  audit: RecordOperatorAction;
  storedCaps: StoredCaps;
}) {
  const { clock, events, audit, storedCaps, log, options = {} } = deps;
  const repo = new WebhooksRepository(deps.database.db, deps.database.dialect);
  const targets = { allowPrivate: deps.allowPrivate, lookup: options.lookup ?? systemLookup };
  const webhooks = new WebhooksService({ repo, clock, audit, storedCaps, ...targets });
  const deliverer = new WebhookDeliverer({
    repo,
    clock,
    events,
    ...targets,
    egress: options.egress ?? httpEgress,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    random: options.random,
  });
  const { pollMs, concurrency } = options;
  const webhookWorker = new WebhookDeliveryWorker({ deliverer, webhooks, log, pollMs, concurrency });
  return {
    webhooks,
    deliverer,
    webhookWorker,
    operations: organizationWebhookOperations(webhooks),
    /** The operator's endpoints (/v1/admin/webhooks). */
    operatorOperations: webhookOperations(webhooks, OPERATOR_ENDPOINTS),
    loops: [webhookWorker],
  };
}

export function register(app: App, module: WebhooksModule, rest: RestBinder): void {
  registerWebhookRoutes(app, rest, { organization: module.operations, operator: module.operatorOperations });
}
