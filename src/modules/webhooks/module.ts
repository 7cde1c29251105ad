// Wiring of the webhooks module: the service behind the routes, the deliverer and its worker.
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/database.ts';
import type { Clock } from '../../lib/clock.ts';
import { systemLookup } from '../../lib/ssrf.ts';
import type { EventsService } from '../events/service.ts';
import { WebhookDeliveryWorker } from '../../workers/webhook-delivery.ts';
import { DEFAULT_TIMEOUT_MS, WebhookDeliverer, type WebhookOptions } from './delivery.ts';
import { httpEgress } from './egress.ts';
import { WebhooksRepository } from './repository.ts';
import { WebhooksService } from './service.ts';

export function buildWebhooks(deps: {
  database: Database;
  clock: Clock;
  events: EventsService;
  allowPrivate: boolean;
  log: FastifyBaseLogger;
  options?: WebhookOptions;
}): { webhooks: WebhooksService; webhookWorker: WebhookDeliveryWorker } {
  const options = deps.options ?? {};
  const repo = new WebhooksRepository(deps.database.db, deps.database.dialect);
  const targets = { allowPrivate: deps.allowPrivate, lookup: options.lookup ?? systemLookup };
  const webhooks = new WebhooksService({ repo, clock: deps.clock, events: deps.events, ...targets });
  const deliverer = new WebhookDeliverer({
    repo,
    clock: deps.clock,
    events: deps.events,
    ...targets,
    egress: options.egress ?? httpEgress,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    random: options.random,
  });
  const webhookWorker = new WebhookDeliveryWorker({
    deliverer,
    webhooks,
    events: deps.events,
    log: deps.log,
    pollMs: options.pollMs,
    concurrency: options.concurrency,
  });
  return { webhooks, webhookWorker };
}
