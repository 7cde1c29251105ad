// Webhook endpoints and their deliveries (contract §6).
import { Type } from 'typebox';
import { agentOf } from '../../http/auth.ts';
import { NextCursor, PaginationQuery } from '../../http/pagination.ts';
import { Body, Described, IdParam, NoContent, Nullable, Timestamp } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { MAX_URL_LENGTH } from '../../lib/ssrf.ts';
import type { WebhooksService } from './service.ts';
import { EVENT_TYPE_FILTERS } from './views.ts';

const TAGS = ['Webhooks'];

const Url = Type.String({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  description: 'https URL of the receiver; it must not be or resolve to a private, loopback or link-local address.',
});
const EventTypes = Type.Array(Type.Enum(EVENT_TYPE_FILTERS), {
  minItems: 1,
  maxItems: 50,
  description: 'Event types to deliver: exact types, `<group>.*` (e.g. `message.*`) or `*` for all. Default `["*"]`.',
});
const Description = Nullable(Type.String({ maxLength: 500 }));

const WEBHOOK_EXAMPLE = {
  id: 'whk_01jdx4c5d6e7f8g9h0j1k2m3n4',
  client_id: 'orders-endpoint-1',
  url: 'https://agent.example.com/hooks/cellgate',
  event_types: ['message.*'],
  enabled: true,
  description: 'Order updates',
  disabled_reason: null,
  created_at: '2026-11-21T12:00:00.000Z',
  updated_at: '2026-11-21T12:00:00.000Z',
};
const SECRET_EXAMPLE = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

const Webhook = Type.Object(
  {
    id: Type.String({ description: 'whk_... id' }),
    client_id: Type.String(),
    url: Type.String(),
    event_types: Type.Array(Type.String()),
    enabled: Type.Boolean(),
    description: Nullable(Type.String()),
    disabled_reason: Nullable(
      Type.String({
        description: 'Why delivery stopped when Cellgate disabled the endpoint (410 Gone, 5 days of failures).',
      }),
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Webhook', description: 'An endpoint that receives events.', examples: [WEBHOOK_EXAMPLE] },
);

const Secret = Type.String({
  description: 'whsec_... signing secret (Standard Webhooks). Shown only in this response.',
});

const WebhookWithSecret = Type.Object(
  { ...Webhook.properties, secret: Secret },
  {
    $id: 'WebhookWithSecret',
    description: 'A webhook endpoint with its signing secret, shown once.',
    examples: [{ ...WEBHOOK_EXAMPLE, secret: SECRET_EXAMPLE }],
  },
);

const WebhookSecretRotation = Type.Object(
  { ...Webhook.properties, secret: Secret, previous_secret_expires_at: Timestamp },
  {
    $id: 'WebhookSecretRotation',
    description:
      'A webhook endpoint with its new signing secret; the previous one also signs until previous_secret_expires_at.',
    examples: [{ ...WEBHOOK_EXAMPLE, secret: SECRET_EXAMPLE, previous_secret_expires_at: '2026-11-22T12:00:00.000Z' }],
  },
);

const WebhookList = Type.Object(
  { webhooks: Type.Array(Webhook), next_cursor: NextCursor },
  {
    $id: 'WebhookList',
    description: 'A page of webhook endpoints.',
    examples: [{ webhooks: [WEBHOOK_EXAMPLE], next_cursor: null }],
  },
);

const ATTEMPT_EXAMPLE = { attempted_at: '2026-11-21T12:00:01.000Z', status_code: 200, latency_ms: 84, error: null };
const DELIVERY_EXAMPLE = {
  id: 'dlv_01jdx4d0e1f2g3h4j5k6m7n8p9',
  webhook_id: WEBHOOK_EXAMPLE.id,
  event_id: 'evt_01jdx3m6q9k8v2c4n7r5t0w1yz',
  event_type: 'message.delivered',
  status: 'succeeded',
  attempts: 1,
  next_attempt_at: null,
  last_status_code: 200,
  last_error: null,
  last_latency_ms: 84,
  attempt_history: [ATTEMPT_EXAMPLE],
  created_at: '2026-11-21T12:00:00.000Z',
  updated_at: '2026-11-21T12:00:01.000Z',
};

const Attempt = Type.Object(
  {
    attempted_at: Timestamp,
    status_code: Nullable(
      Type.Integer({ description: "The receiver's HTTP status; null when none came (timeout, network error)." }),
    ),
    latency_ms: Type.Integer(),
    error: Nullable(Type.String()),
  },
  { $id: 'WebhookDeliveryAttempt', description: 'One attempt to deliver an event.', examples: [ATTEMPT_EXAMPLE] },
);

const Delivery = Type.Object(
  {
    id: Type.String({ description: 'dlv_... id' }),
    webhook_id: Type.String(),
    event_id: Type.String({ description: 'Also the webhook-id header, the same on every attempt.' }),
    event_type: Type.String(),
    status: Type.Enum(['pending', 'retrying', 'succeeded', 'failed']),
    attempts: Type.Integer(),
    next_attempt_at: Nullable(Timestamp),
    last_status_code: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
    last_latency_ms: Nullable(Type.Integer()),
    attempt_history: Type.Array(Attempt),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    $id: 'WebhookDelivery',
    description: 'The delivery of one event to one endpoint, with its attempts.',
    examples: [DELIVERY_EXAMPLE],
  },
);

export const DeliveryList = Type.Object(
  { deliveries: Type.Array(Delivery), next_cursor: NextCursor },
  {
    $id: 'WebhookDeliveryList',
    description: 'A page of deliveries.',
    examples: [{ deliveries: [DELIVERY_EXAMPLE], next_cursor: null }],
  },
);

const WebhookParams = IdParam('id', 'whk');
const DeliveryParams = Type.Object({ ...WebhookParams.properties, ...IdParam('delivery_id', 'dlv').properties });

export function registerWebhookRoutes(app: App, webhooks: WebhooksService): void {
  app.post(
    '/v1/webhooks',
    {
      config: { auth: 'agent', scope: 'webhooks:write', errors: ['client_id_conflict'] },
      schema: {
        operationId: 'createWebhook',
        tags: TAGS,
        summary: 'Create a webhook endpoint',
        description:
          'Returns 201 with the signing secret. Repeating the request with the same client_id and the same body returns the webhook with 200 (without the secret); the same client_id with another body is 409 client_id_conflict.',
        body: Body(
          {
            client_id: Type.String({
              minLength: 1,
              maxLength: 255,
              description: 'Your unique id for this create; makes retries safe.',
            }),
            url: Url,
            event_types: Type.Optional(EventTypes),
            enabled: Type.Optional(Type.Boolean({ default: true })),
            description: Type.Optional(Description),
          },
          {
            examples: [
              {
                client_id: 'orders-endpoint-1',
                url: 'https://agent.example.com/hooks/cellgate',
                event_types: ['message.*'],
              },
            ],
          },
        ),
        response: {
          200: Described(
            Webhook,
            'The webhook created earlier with this client_id and the same body (without its secret).',
          ),
          201: Described(WebhookWithSecret, 'The created webhook endpoint, with its signing secret (shown once).'),
        },
      },
    },
    async (request, reply) => {
      const { created, webhook } = await webhooks.create(agentOf(request).organizationId, request.body);
      return reply.code(created ? 201 : 200).send(webhook);
    },
  );

  app.get(
    '/v1/webhooks',
    {
      config: { auth: 'agent', scope: 'webhooks:write' }, // the contract has no webhooks:read: managing webhooks is one scope
      schema: {
        operationId: 'listWebhooks',
        tags: TAGS,
        summary: 'List webhook endpoints',
        querystring: Type.Object(PaginationQuery),
        response: { 200: Described(WebhookList, 'A page of webhook endpoints, newest first.') },
      },
    },
    async (request) => webhooks.list(agentOf(request).organizationId, request.query),
  );

  app.get(
    '/v1/webhooks/:id',
    {
      config: { auth: 'agent', scope: 'webhooks:write' }, // the contract has no webhooks:read: managing webhooks is one scope
      schema: {
        operationId: 'getWebhook',
        tags: TAGS,
        summary: 'Read a webhook endpoint',
        params: WebhookParams,
        response: { 200: Described(Webhook, 'The webhook endpoint.') },
      },
    },
    async (request) => webhooks.get(agentOf(request).organizationId, request.params.id),
  );

  app.patch(
    '/v1/webhooks/:id',
    {
      config: { auth: 'agent', scope: 'webhooks:write' },
      schema: {
        operationId: 'updateWebhook',
        tags: TAGS,
        summary: 'Update a webhook endpoint',
        description:
          'Enabling a disabled endpoint clears disabled_reason, starts a fresh failure window and resumes its queued deliveries.',
        params: WebhookParams,
        body: Body(
          {
            url: Type.Optional(Url),
            event_types: Type.Optional(EventTypes),
            enabled: Type.Optional(Type.Boolean()),
            description: Type.Optional(Description),
          },
          { examples: [{ enabled: true }] },
        ),
        response: { 200: Described(Webhook, 'The updated webhook endpoint.') },
      },
    },
    async (request) => webhooks.update(agentOf(request).organizationId, request.params.id, request.body),
  );

  app.delete(
    '/v1/webhooks/:id',
    {
      config: { auth: 'agent', scope: 'webhooks:write' },
      schema: {
        operationId: 'deleteWebhook',
        tags: TAGS,
        summary: 'Delete a webhook endpoint',
        description: 'Queued deliveries are abandoned.',
        params: WebhookParams,
        response: { 204: NoContent('Deleted.') },
      },
    },
    async (request, reply) => {
      await webhooks.remove(agentOf(request).organizationId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/webhooks/:id/rotate-secret',
    {
      config: { auth: 'agent', scope: 'webhooks:write' },
      schema: {
        operationId: 'rotateWebhookSecret',
        tags: TAGS,
        summary: 'Rotate the signing secret',
        description:
          'Returns the new secret. For 24 hours deliveries carry two signatures (new and previous secret), so receivers can switch without losing events.',
        params: WebhookParams,
        response: {
          200: Described(WebhookSecretRotation, 'The webhook endpoint with its new signing secret (shown once).'),
        },
      },
    },
    async (request) => webhooks.rotateSecret(agentOf(request).organizationId, request.params.id),
  );

  app.get(
    '/v1/webhooks/:id/deliveries',
    {
      config: { auth: 'agent', scope: 'webhooks:write' }, // the contract has no webhooks:read: managing webhooks is one scope
      schema: {
        operationId: 'listWebhookDeliveries',
        tags: TAGS,
        summary: 'List deliveries of a webhook endpoint',
        description: 'Newest first, each with its attempts (time, status code, latency, error).',
        params: WebhookParams,
        querystring: Type.Object(PaginationQuery),
        response: { 200: Described(DeliveryList, 'A page of deliveries, newest first.') },
      },
    },
    async (request) => webhooks.listDeliveries(agentOf(request).organizationId, request.params.id, request.query),
  );

  app.post(
    '/v1/webhooks/:id/deliveries/:delivery_id/retry',
    {
      config: { auth: 'agent', scope: 'webhooks:write', errors: ['conflict'] },
      schema: {
        operationId: 'retryWebhookDelivery',
        tags: TAGS,
        summary: 'Retry a delivery now',
        description:
          'Queues an attempt now, also for a delivery that already succeeded or failed. 409 while the endpoint is disabled or an attempt is in flight.',
        params: DeliveryParams,
        response: { 202: Described(Delivery, 'The delivery, queued for an attempt now.') },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(
          await webhooks.retryDelivery(agentOf(request).organizationId, request.params.id, request.params.delivery_id),
        ),
  );
}
