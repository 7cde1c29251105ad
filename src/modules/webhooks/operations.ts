// Webhooks' operations (src/operations): one set, made for each owner of endpoints. An
// organization's (its agents and console; bound to /v1/webhooks in routes.ts, and
// list_webhook_deliveries to an MCP tool) and the operator's (admin tokens; /v1/admin/webhooks,
// the phones' events, contract §11), whose endpoints the service keeps under no organization.
import { Type, type TObject } from 'typebox';
import { PaginationQuery } from '../../http/pagination.ts';
import {
  defineOperation,
  defineOperatorOperation,
  type Operation,
  type OperatorContext,
  type RunContext,
} from '../../operations/operation.ts';
import {
  createWebhookBody,
  Delivery,
  DeliveryList,
  DeliveryIds,
  updateWebhookInput,
  Webhook,
  WebhookIdField,
  WebhookList,
  WebhookSecretRotation,
  WebhookWithSecret,
} from './schemas.ts';
import type { OperatorActor, Owner, WebhooksService } from './service.ts';
import { EVENT_TYPE_FILTERS, OPERATOR_EVENT_TYPE_FILTERS } from './views.ts';

type Action =
  | 'createWebhook'
  | 'listWebhooks'
  | 'getWebhook'
  | 'updateWebhook'
  | 'deleteWebhook'
  | 'rotateWebhookSecret'
  | 'listWebhookDeliveries'
  | 'retryWebhookDelivery';

/** What an operation of the set declares; its owner adds who may call it. */
type Declared<In extends TObject, Out, Context> = Pick<
  Operation<In, Out, Context>,
  'name' | 'summary' | 'description' | 'status' | 'errors' | 'input' | 'output' | 'run'
>;

/** An owner's create and update inputs: which event types its endpoints take. */
const endpointBodies = (filters: string[], example: string) => ({
  create: createWebhookBody(filters, example),
  update: updateWebhookInput(filters, example),
});
const ById = Type.Object({ id: WebhookIdField });

/** Whose endpoints a set of operations manages, and what differs between the owners' sets. */
interface EndpointOwner<Context> {
  /** The operation with its owner's principals, scope and idempotency. */
  define<In extends TObject, Out>(operation: Declared<In, Out, Context>): Operation<In, Out, Context>;
  /** The owner the service keeps the endpoints under. */
  of(ctx: Context): Owner;
  /** The admin token whose changes the operator audit log records (none for an organization's endpoints). */
  actor(ctx: Context): OperatorActor;
  bodies: ReturnType<typeof endpointBodies>;
  /** Each operation's name and summary, and its description where the owner words its own. */
  texts: Record<Action, readonly [name: string, summary: string, description?: string]>;
}

/** The contract has no webhooks:read: managing webhooks is one scope. */
const SCOPE = 'webhooks:write';

export const ORGANIZATION_ENDPOINTS: EndpointOwner<RunContext> = {
  define: (operation) => defineOperation({ ...operation, scope: SCOPE, idempotency: 'none' }),
  of: (ctx) => ctx.organizationId,
  actor: () => undefined,
  bodies: endpointBodies(EVENT_TYPE_FILTERS, 'message.*'),
  texts: {
    createWebhook: [
      'create_webhook',
      'Create a webhook endpoint',
      'Returns 201 with the signing secret. Repeating the request with the same client_id and the same body returns the webhook with 200 (without the secret); the same client_id with another body is 409 client_id_conflict.',
    ],
    listWebhooks: ['list_webhooks', 'List webhook endpoints'],
    getWebhook: ['get_webhook', 'Read a webhook endpoint'],
    updateWebhook: ['update_webhook', 'Update a webhook endpoint'],
    deleteWebhook: ['delete_webhook', 'Delete a webhook endpoint'],
    rotateWebhookSecret: [
      'rotate_webhook_secret',
      'Rotate the signing secret',
      'Returns the new secret. For 24 hours deliveries carry two signatures (new and previous secret), so receivers can switch without losing events.',
    ],
    listWebhookDeliveries: ['list_webhook_deliveries', 'List deliveries of a webhook endpoint'],
    retryWebhookDelivery: ['retry_webhook_delivery', 'Retry a delivery now'],
  },
};

export const OPERATOR_ENDPOINTS: EndpointOwner<OperatorContext> = {
  define: defineOperatorOperation,
  of: () => null,
  actor: (ctx) => ctx.principal,
  bodies: endpointBodies(OPERATOR_EVENT_TYPE_FILTERS, 'device.*'),
  texts: {
    createWebhook: [
      'create_operator_webhook',
      'Create an operator webhook endpoint (device events)',
      "Receives device.offline, device.online, device.battery_low, device.unhealthy and device.recovered, with the Device (admin view) as data and organization_id null; signed and retried as an organization's webhooks. 201 with the signing secret; the same client_id and body again is 200 without it; another body is 409 client_id_conflict.",
    ],
    listWebhooks: ['list_operator_webhooks', 'List operator webhook endpoints'],
    getWebhook: ['get_operator_webhook', 'Read an operator webhook endpoint'],
    updateWebhook: ['update_operator_webhook', 'Update an operator webhook endpoint'],
    deleteWebhook: ['delete_operator_webhook', 'Delete an operator webhook endpoint'],
    rotateWebhookSecret: [
      'rotate_operator_webhook_secret',
      'Rotate the signing secret of an operator webhook endpoint',
      'Returns the new secret; for 24 hours deliveries carry two signatures (new and previous secret).',
    ],
    listWebhookDeliveries: ['list_operator_webhook_deliveries', 'List deliveries of an operator webhook endpoint'],
    retryWebhookDelivery: ['retry_operator_webhook_delivery', 'Retry a delivery of an operator webhook endpoint now'],
  },
};

export function webhookOperations<Context>(webhooks: WebhooksService, owner: EndpointOwner<Context>) {
  const { define, of, actor } = owner;
  /** The action's name, summary and description (the owner's, else the shared one); no errors unless it says. */
  const texts = (action: Action, shared = '') => {
    const [name, summary, description = shared] = owner.texts[action];
    return { name, summary, description, errors: [] };
  };
  return {
    createWebhook: define({
      ...texts('createWebhook'),
      status: 201,
      errors: ['client_id_conflict', 'conflict'],
      input: owner.bodies.create,
      output: WebhookWithSecret,
      run: (ctx, input) => webhooks.create(of(ctx), input, actor(ctx)),
    }),
    listWebhooks: define({
      ...texts('listWebhooks'),
      input: Type.Object(PaginationQuery),
      output: WebhookList,
      run: (ctx, input) => webhooks.list(of(ctx), input),
    }),
    getWebhook: define({
      ...texts('getWebhook'),
      input: ById,
      output: Webhook,
      run: (ctx, input) => webhooks.get(of(ctx), input.id),
    }),
    updateWebhook: define({
      ...texts(
        'updateWebhook',
        'Enabling a disabled endpoint clears disabled_reason, starts a fresh failure window and resumes its queued deliveries.',
      ),
      input: owner.bodies.update,
      output: Webhook,
      run: (ctx, { id, ...input }) => webhooks.update(of(ctx), id, input, actor(ctx)),
    }),
    deleteWebhook: define({
      ...texts('deleteWebhook', 'Queued deliveries are abandoned.'),
      status: 204,
      input: ById,
      output: Type.Null(),
      run: (ctx, input) => webhooks.remove(of(ctx), input.id, actor(ctx)).then(() => null),
    }),
    rotateWebhookSecret: define({
      ...texts('rotateWebhookSecret'),
      input: ById,
      output: WebhookSecretRotation,
      run: (ctx, input) => webhooks.rotateSecret(of(ctx), input.id, actor(ctx)),
    }),
    listWebhookDeliveries: define({
      ...texts('listWebhookDeliveries', 'Newest first, each with its attempts (time, status code, latency, error).'),
      errors: ['not_found'],
      input: Type.Object({ webhook_id: WebhookIdField, ...PaginationQuery }, { additionalProperties: false }),
      output: DeliveryList,
      run: (ctx, { webhook_id, ...query }) => webhooks.listDeliveries(of(ctx), webhook_id, query),
    }),
    retryWebhookDelivery: define({
      ...texts(
        'retryWebhookDelivery',
        'Queues an attempt now, also for a delivery that already succeeded or failed. 409 while the endpoint is disabled or an attempt is in flight.',
      ),
      status: 202,
      errors: ['conflict'],
      input: DeliveryIds,
      output: Delivery,
      run: (ctx, input) => webhooks.retryDelivery(of(ctx), input.id, input.delivery_id, actor(ctx)),
    }),
  };
}

export type WebhookOperations<Context = RunContext> = ReturnType<typeof webhookOperations<Context>>;

/** An organization's set, with the console's "Send a test event" (no REST route or MCP tool: the interface has none). */
export const organizationWebhookOperations = (webhooks: WebhooksService) => ({
  ...webhookOperations(webhooks, ORGANIZATION_ENDPOINTS),
  sendWebhookTestEvent: ORGANIZATION_ENDPOINTS.define({
    name: 'send_webhook_test_event',
    summary: 'Send a test event to a webhook endpoint',
    description:
      'Queues a webhook.test delivery to this endpoint alone, whatever its event types; not an event of the organization. 409 while the endpoint is disabled.',
    status: 202,
    errors: ['conflict'],
    input: ById,
    output: Delivery,
    run: (ctx, input) => webhooks.sendTestEvent(ctx.organizationId, input.id),
  }),
});
