// Webhook endpoints and their deliveries, bound from the operations (./operations.ts): the
// organization's under /v1/webhooks (contract §6) and the operator's under /v1/admin/webhooks
// (contract §11), the same routes with their own texts.
import { Described } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { AnyOperation, OperatorContext } from '../../operations/operation.ts';
import type { RestBinder, RestBinding } from '../../operations/rest.ts';
import type { WebhookOperations } from './operations.ts';
import { Webhook } from './schemas.ts';
import type { WebhookView } from './service.ts';

/** Where an owner's endpoints are and how their answers are worded. */
interface Surface {
  url: string;
  tags: string[];
  /** What one is called in the answers' descriptions. */
  endpoint: string;
  /** A create's answers: the new endpoint (201), the one made earlier with its client_id (200). */
  created: { fresh: string; repeated: string };
}

const ORGANIZATION: Surface = {
  url: '/v1/webhooks',
  tags: ['Webhooks'],
  endpoint: 'webhook endpoint',
  created: {
    fresh: 'The created webhook endpoint, with its signing secret (shown once).',
    repeated: 'The webhook created earlier with this client_id and the same body (without its secret).',
  },
};

const OPERATOR: Surface = {
  url: '/v1/admin/webhooks',
  tags: ['Admin'],
  endpoint: 'operator webhook endpoint',
  created: {
    fresh: 'The created endpoint, with its signing secret (shown once).',
    repeated: 'The endpoint created earlier with this client_id and the same body (without its secret).',
  },
};

export function registerWebhookRoutes(
  app: App,
  rest: RestBinder,
  ops: { organization: WebhookOperations; operator: WebhookOperations<OperatorContext> },
): void {
  bindEndpoints(app, rest, ops.organization, ORGANIZATION);
  bindEndpoints(app, rest, ops.operator, OPERATOR);
}

function bindEndpoints<Context>(
  app: App,
  rest: RestBinder,
  ops: WebhookOperations<Context>,
  { url, tags, endpoint, created }: Surface,
): void {
  /** The answer is the operation's output, described by `text`. */
  const bind = (op: AnyOperation, method: RestBinding['method'], path: string, text: string, more = {}) =>
    rest.bind(app, op, { method, url: url + path, tags, response: Described(op.output, text), ...more });
  bind(ops.createWebhook, 'POST', '', created.fresh, {
    responses: { 200: Described(Webhook, created.repeated) },
    answer: (outcome: { created: boolean; webhook: WebhookView }) => ({
      body: outcome.webhook,
      status: outcome.created ? 201 : 200,
    }),
  });
  bind(ops.listWebhooks, 'GET', '', `A page of ${endpoint}s, newest first.`);
  bind(ops.getWebhook, 'GET', '/:id', `The ${endpoint}.`);
  bind(ops.updateWebhook, 'PATCH', '/:id', `The updated ${endpoint}.`);
  bind(ops.deleteWebhook, 'DELETE', '/:id', 'Deleted.');
  const rotated = `The ${endpoint} with its new signing secret (shown once).`;
  bind(ops.rotateWebhookSecret, 'POST', '/:id/rotate-secret', rotated);
  const deliveries = 'A page of deliveries, newest first.';
  bind(ops.listWebhookDeliveries, 'GET', '/:id/deliveries', deliveries, { path: { id: 'webhook_id' } });
  const retried = 'The delivery, queued for an attempt now.';
  bind(ops.retryWebhookDelivery, 'POST', '/:id/deliveries/:delivery_id/retry', retried);
}
