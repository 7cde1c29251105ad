// Webhooks' operations (src/operations): bound to MCP tools in src/modules/mcp (the REST routes of
// the same actions are still registered by routes.ts).
import { Type } from 'typebox';
import { PaginationQuery } from '../../http/pagination.ts';
import { defineOperation } from '../../operations/operation.ts';
import { DeliveryList } from './routes.ts';
import type { WebhooksService } from './service.ts';

export function webhookOperations(webhooks: WebhooksService) {
  return {
    listWebhookDeliveries: defineOperation({
      name: 'list_webhook_deliveries',
      summary: 'List deliveries of a webhook endpoint',
      description: 'Newest first, each with its attempts (time, status code, latency, error).',
      // The contract has no webhooks:read: managing webhooks is one scope (as GET /v1/webhooks/{id}/deliveries).
      scope: 'webhooks:write',
      idempotency: 'none',
      errors: ['not_found'],
      input: Type.Object(
        {
          webhook_id: Type.String({ minLength: 1, maxLength: 64, description: 'whk_... id' }),
          ...PaginationQuery,
        },
        { additionalProperties: false },
      ),
      output: DeliveryList,
      run: (ctx, { webhook_id, ...query }) => webhooks.listDeliveries(ctx.organizationId, webhook_id, query),
    }),
  };
}

export type WebhookOperations = ReturnType<typeof webhookOperations>;
