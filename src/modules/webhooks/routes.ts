// The organization's webhook endpoints and their deliveries (contract §6), bound from the
// operations (./operations.ts).
import { Type } from 'typebox';
import { PaginationQuery } from '../../http/pagination.ts';
import { Described, NoContent } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { CreateWebhookBody, UpdateWebhookBody, type WebhookOperations } from './operations.ts';
import {
  Delivery,
  DeliveryList,
  DeliveryParams,
  Webhook,
  WebhookList,
  WebhookParams,
  WebhookSecretRotation,
  WebhookWithSecret,
} from './schemas.ts';
import type { WebhookView } from './service.ts';

const TAGS = ['Webhooks'];

export function registerWebhookRoutes(app: App, rest: RestBinder, ops: WebhookOperations): void {
  rest.bind(app, ops.createWebhook, {
    method: 'POST',
    url: '/v1/webhooks',
    tags: TAGS,
    body: CreateWebhookBody,
    response: Described(WebhookWithSecret, 'The created webhook endpoint, with its signing secret (shown once).'),
    responses: {
      200: Described(
        Webhook,
        'The webhook created earlier with this client_id and the same body (without its secret).',
      ),
    },
    answer: ({ created, webhook }: { created: boolean; webhook: WebhookView }) => ({
      body: webhook,
      status: created ? 201 : 200,
    }),
  });

  rest.bind(app, ops.listWebhooks, {
    method: 'GET',
    url: '/v1/webhooks',
    tags: TAGS,
    querystring: Type.Object(PaginationQuery),
    response: Described(WebhookList, 'A page of webhook endpoints, newest first.'),
  });

  rest.bind(app, ops.getWebhook, {
    method: 'GET',
    url: '/v1/webhooks/:id',
    tags: TAGS,
    params: WebhookParams,
    response: Described(Webhook, 'The webhook endpoint.'),
  });

  rest.bind(app, ops.updateWebhook, {
    method: 'PATCH',
    url: '/v1/webhooks/:id',
    tags: TAGS,
    params: WebhookParams,
    body: UpdateWebhookBody,
    response: Described(Webhook, 'The updated webhook endpoint.'),
  });

  rest.bind(app, ops.deleteWebhook, {
    method: 'DELETE',
    url: '/v1/webhooks/:id',
    tags: TAGS,
    params: WebhookParams,
    response: NoContent('Deleted.'),
  });

  rest.bind(app, ops.rotateWebhookSecret, {
    method: 'POST',
    url: '/v1/webhooks/:id/rotate-secret',
    tags: TAGS,
    params: WebhookParams,
    response: Described(WebhookSecretRotation, 'The webhook endpoint with its new signing secret (shown once).'),
  });

  rest.bind(app, ops.listWebhookDeliveries, {
    method: 'GET',
    url: '/v1/webhooks/:id/deliveries',
    tags: TAGS,
    params: WebhookParams,
    pathAs: { id: 'webhook_id' },
    querystring: Type.Object(PaginationQuery),
    response: Described(DeliveryList, 'A page of deliveries, newest first.'),
  });

  rest.bind(app, ops.retryWebhookDelivery, {
    method: 'POST',
    url: '/v1/webhooks/:id/deliveries/:delivery_id/retry',
    tags: TAGS,
    params: DeliveryParams,
    response: Described(Delivery, 'The delivery, queued for an attempt now.'),
  });
}
