// Webhooks' operations (src/operations): the organization's endpoints and their deliveries,
// bound to REST routes in routes.ts and (list_webhook_deliveries) to an MCP tool.
import { Type } from 'typebox';
import { PaginationQuery } from '../../http/pagination.ts';
import { defineOperation } from '../../operations/operation.ts';
import {
  createWebhookBody,
  Delivery,
  DeliveryList,
  DeliveryParams,
  updateWebhookBody,
  Webhook,
  WebhookIdField,
  WebhookList,
  WebhookSecretRotation,
  WebhookWithSecret,
} from './schemas.ts';
import type { WebhooksService } from './service.ts';
import { EVENT_TYPE_FILTERS } from './views.ts';

/** The contract has no webhooks:read: managing webhooks is one scope. */
const SCOPE = 'webhooks:write';
export const CreateWebhookBody = createWebhookBody(EVENT_TYPE_FILTERS, 'message.*');
export const UpdateWebhookBody = updateWebhookBody(EVENT_TYPE_FILTERS, 'message.*');
const ById = Type.Object({ id: WebhookIdField });

export function webhookOperations(webhooks: WebhooksService) {
  return {
    createWebhook: defineOperation({
      name: 'create_webhook',
      summary: 'Create a webhook endpoint',
      description:
        'Returns 201 with the signing secret. Repeating the request with the same client_id and the same body returns the webhook with 200 (without the secret); the same client_id with another body is 409 client_id_conflict.',
      scope: SCOPE,
      idempotency: 'none',
      status: 201,
      errors: ['client_id_conflict'],
      input: CreateWebhookBody,
      output: WebhookWithSecret,
      run: (ctx, input) => webhooks.create(ctx.organizationId, input),
    }),
    listWebhooks: defineOperation({
      name: 'list_webhooks',
      summary: 'List webhook endpoints',
      description: '',
      scope: SCOPE,
      idempotency: 'none',
      errors: [],
      input: Type.Object(PaginationQuery),
      output: WebhookList,
      run: (ctx, input) => webhooks.list(ctx.organizationId, input),
    }),
    getWebhook: defineOperation({
      name: 'get_webhook',
      summary: 'Read a webhook endpoint',
      description: '',
      scope: SCOPE,
      idempotency: 'none',
      errors: [],
      input: ById,
      output: Webhook,
      run: (ctx, input) => webhooks.get(ctx.organizationId, input.id),
    }),
    updateWebhook: defineOperation({
      name: 'update_webhook',
      summary: 'Update a webhook endpoint',
      description:
        'Enabling a disabled endpoint clears disabled_reason, starts a fresh failure window and resumes its queued deliveries.',
      scope: SCOPE,
      idempotency: 'none',
      errors: [],
      input: Type.Object({ id: WebhookIdField, ...UpdateWebhookBody.properties }, { additionalProperties: false }),
      output: Webhook,
      run: (ctx, { id, ...input }) => webhooks.update(ctx.organizationId, id, input),
    }),
    deleteWebhook: defineOperation({
      name: 'delete_webhook',
      summary: 'Delete a webhook endpoint',
      description: 'Queued deliveries are abandoned.',
      scope: SCOPE,
      idempotency: 'none',
      status: 204,
      errors: [],
      input: ById,
      output: Type.Null(),
      run: async (ctx, input) => {
        await webhooks.remove(ctx.organizationId, input.id);
        return null;
      },
    }),
    rotateWebhookSecret: defineOperation({
      name: 'rotate_webhook_secret',
      summary: 'Rotate the signing secret',
      description:
        'Returns the new secret. For 24 hours deliveries carry two signatures (new and previous secret), so receivers can switch without losing events.',
      scope: SCOPE,
      idempotency: 'none',
      errors: [],
      input: ById,
      output: WebhookSecretRotation,
      run: (ctx, input) => webhooks.rotateSecret(ctx.organizationId, input.id),
    }),
    listWebhookDeliveries: defineOperation({
      name: 'list_webhook_deliveries',
      summary: 'List deliveries of a webhook endpoint',
      description: 'Newest first, each with its attempts (time, status code, latency, error).',
      scope: SCOPE,
      idempotency: 'none',
      errors: ['not_found'],
      input: Type.Object({ webhook_id: WebhookIdField, ...PaginationQuery }, { additionalProperties: false }),
      output: DeliveryList,
      run: (ctx, { webhook_id, ...query }) => webhooks.listDeliveries(ctx.organizationId, webhook_id, query),
    }),
    retryWebhookDelivery: defineOperation({
      name: 'retry_webhook_delivery',
      summary: 'Retry a delivery now',
      description:
        'Queues an attempt now, also for a delivery that already succeeded or failed. 409 while the endpoint is disabled or an attempt is in flight.',
      scope: SCOPE,
      idempotency: 'none',
      status: 202,
      errors: ['conflict'],
      input: DeliveryParams,
      output: Delivery,
      run: (ctx, input) => webhooks.retryDelivery(ctx.organizationId, input.id, input.delivery_id),
    }),
  };
}

export type WebhookOperations = ReturnType<typeof webhookOperations>;
