// Billing's operations (src/operations): bound to MCP tools in src/modules/mcp (the REST routes of
// the same actions are still registered by routes.ts).
import { Type } from 'typebox';
import { defineOperation } from '../../operations/operation.ts';
import { Range } from './routes.ts';
import { UsageSummary } from './schemas.ts';
import type { UsageService } from './usage.ts';

export function billingOperations(deps: { usage: UsageService }) {
  return {
    getUsage: defineOperation({
      name: 'get_usage',
      summary: 'Usage totals by type over a period',
      description:
        'What the organization used (messages, cell-months) and what it cost, by type, over [from, to) (default: the last 30 days).',
      scope: 'usage:read',
      idempotency: 'none',
      errors: [],
      input: Type.Object(Range, { additionalProperties: false }),
      output: UsageSummary,
      run: (ctx, query) => deps.usage.summary(ctx.organizationId, query),
    }),
  };
}

export type BillingOperations = ReturnType<typeof billingOperations>;
