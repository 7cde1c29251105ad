// Billing's operations (src/operations): bound to MCP tools in src/modules/mcp (the REST routes of
// the same actions are still registered by routes.ts).
import { Type } from 'typebox';
import { Nullable } from '../../http/schemas.ts';
import { defineOperation } from '../../operations/operation.ts';
import { DisplayName, TierQuery } from '../cells/schemas.ts';
import type { BillingEnforcement } from './enforcement.ts';
import { Range } from './routes.ts';
import { PaymentDetails, UsageSummary } from './schemas.ts';
import type { UsageService } from './usage.ts';

/** What a paid action would take now (enforcement.ts ChargeQuote). */
export const ChargeQuote = Type.Object({
  amount_usd: Type.String({ description: 'What the action costs now, in dollars ("0.00" when covered).' }),
  currency: Type.Literal('USD'),
  covered_by: Type.Enum(['billing_off', 'included', 'cell_credit', 'balance', 'payment'], {
    description:
      'billing_off: nothing is charged; included: within the tier; cell_credit: a create_cell already paid; balance: taken from the prepaid balance; payment: a payment is needed first (see payment).',
  }),
  detail: Type.String(),
  payment: Nullable(PaymentDetails),
});

/** The answer of a paid tool called without confirm: true (contract §10, docs/mcp.md). */
export const ConfirmationRequired = {
  confirmation_required: Type.Optional(
    Type.Literal(true, { description: 'Nothing was done: call again with confirm: true to do it at this price.' }),
  ),
  quote: Type.Optional(ChargeQuote),
};

export function billingOperations(deps: { usage: UsageService; enforcement: BillingEnforcement }) {
  return {
    quoteCreateCell: defineOperation({
      name: 'quote_create_cell',
      summary: 'What creating a cell would cost now',
      description: 'As create_cell decides it (setup, reinstate, included cell, paid cell), charging nothing.',
      scope: 'cells:write',
      idempotency: 'none',
      errors: [],
      input: Type.Object({ display_name: DisplayName, ...TierQuery }, { additionalProperties: false }),
      output: ChargeQuote,
      run: (ctx, input) => deps.enforcement.cellQuote(ctx.organizationId, input.tier),
    }),
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
