// The webhook shapes (contract §6), shared by the organization's routes and operations and the
// operator's (/v1/admin/webhooks, contract §11: same shapes).
import { Type } from 'typebox';
import { pageOf } from '../../http/pagination.ts';
import { Body, IdField, Nullable, Timestamp } from '../../http/schemas.ts';
import { MAX_URL_LENGTH } from '../../lib/ssrf.ts';

const Url = Type.String({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  description: 'https URL of the receiver; it must not be or resolve to a private, loopback or link-local address.',
});
/** The event_types field, of the filters an endpoint kind takes. */
const eventTypes = (filters: string[], example: string) =>
  Type.Array(Type.Enum(filters), {
    minItems: 1,
    maxItems: 50,
    description: `Event types to deliver: exact types, \`<group>.*\` (e.g. \`${example}\`) or \`*\` for all. Default \`["*"]\`.`,
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

export const Webhook = Type.Object(
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

export const WebhookWithSecret = Type.Object(
  { ...Webhook.properties, secret: Secret },
  {
    $id: 'WebhookWithSecret',
    description: 'A webhook endpoint with its signing secret, shown once.',
    examples: [{ ...WEBHOOK_EXAMPLE, secret: SECRET_EXAMPLE }],
  },
);

export const WebhookSecretRotation = Type.Object(
  { ...Webhook.properties, secret: Secret, previous_secret_expires_at: Timestamp },
  {
    $id: 'WebhookSecretRotation',
    description:
      'A webhook endpoint with its new signing secret; the previous one also signs until previous_secret_expires_at.',
    examples: [{ ...WEBHOOK_EXAMPLE, secret: SECRET_EXAMPLE, previous_secret_expires_at: '2026-11-22T12:00:00.000Z' }],
  },
);

export const WebhookList = pageOf('webhooks', Webhook, 'WebhookList', 'A page of webhook endpoints.', WEBHOOK_EXAMPLE);

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

export const Delivery = Type.Object(
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

export const DeliveryList = pageOf(
  'deliveries',
  Delivery,
  'WebhookDeliveryList',
  'A page of deliveries.',
  DELIVERY_EXAMPLE,
);

export const WebhookIdField = IdField('whk');
/** A delivery of an endpoint: the endpoint's id and its own. */
export const DeliveryIds = Type.Object({ id: WebhookIdField, delivery_id: IdField('dlv') });

/** The create body of an endpoint that takes `filters` (an example filter: `message.*`). */
export function createWebhookBody(filters: string[], example: string) {
  return Body(
    {
      client_id: Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'Your unique id for this create; makes retries safe.',
      }),
      url: Url,
      event_types: Type.Optional(eventTypes(filters, example)),
      enabled: Type.Optional(Type.Boolean({ default: true })),
      description: Type.Optional(Description),
    },
    {
      examples: [
        { client_id: 'orders-endpoint-1', url: 'https://agent.example.com/hooks/cellgate', event_types: [example] },
      ],
    },
  );
}

/** The update of an endpoint that takes `filters`: its id (the path's) and the fields to change. */
export function updateWebhookInput(filters: string[], example: string) {
  return Body(
    {
      id: WebhookIdField,
      url: Type.Optional(Url),
      event_types: Type.Optional(eventTypes(filters, example)),
      enabled: Type.Optional(Type.Boolean()),
      description: Type.Optional(Description),
    },
    { examples: [{ id: WEBHOOK_EXAMPLE.id, enabled: true }] },
  );
}
