// POST /v1/billing/x402/pay: pays an intent directly over x402 (contract §7). Without
// PAYMENT-SIGNATURE it answers the intent's 402 (with PAYMENT-REQUIRED); the retry that carries
// one is settled before the handler (see x402.ts) and answers 200 with PAYMENT-RESPONSE.
import { Type } from 'typebox';
import { agentOf } from '../../http/auth.ts';
import { Body, Described } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { BillingStatus, PaymentIntentFields } from './schemas.ts';
import { INTENTS } from './lifecycle.ts';
import type { BillingQuotes } from './quotes.ts';
import type { BillingService } from './service.ts';
import { paidBy } from './x402.ts';

const X402Payment = Type.Object(
  {
    payment_id: Type.String({ description: 'pay_... id of the settled quote' }),
    intent: Type.Enum([...INTENTS]),
    amount_usd: Type.String(),
    billing: BillingStatus,
  },
  {
    $id: 'X402Payment',
    description: 'An intent paid over x402, with the billing status after it.',
    examples: [
      {
        payment_id: 'pay_01jdx4c5d6e7f8g9h0j1k2m3n4',
        intent: 'top_up',
        amount_usd: '25.00',
        billing: {
          state: 'active',
          tier: 'starter',
          prepaid_balance_usd: 25,
          current_period_end: '2026-12-21T12:00:00.000Z',
          amount_due_usd: 0,
          cells: { included: 1, active: 1 },
        },
      },
    ],
  },
);

export function registerX402Routes(app: App, deps: { billing: BillingService; quotes: BillingQuotes }): void {
  const { billing, quotes } = deps;
  app.post(
    '/v1/billing/x402/pay',
    {
      config: {
        auth: 'agent',
        scope: 'billing:write',
        errors: ['payment_required', 'not_found', 'conflict', 'billing_disabled'],
      },
      schema: {
        operationId: 'payWithX402',
        tags: ['Billing'],
        summary: 'Pay an intent over x402',
        description:
          'Without PAYMENT-SIGNATURE: 402 with the PaymentDetails of the intent and the x402 v2 PAYMENT-REQUIRED header. ' +
          'Retried with PAYMENT-SIGNATURE: verified and settled through the facilitator, credited once, the intent applied; 200 with PAYMENT-RESPONSE.',
        body: Body(PaymentIntentFields, { examples: [{ intent: 'top_up', amount_usd: '25.00' }] }),
        response: { 200: Described(X402Payment, 'The intent is paid.') },
      },
    },
    async (request) => {
      const organizationId = agentOf(request).organizationId;
      const paid = paidBy(request);
      if (paid)
        return {
          payment_id: paid.id,
          intent: paid.intent,
          amount_usd: paid.amountUsd,
          billing: await billing.status(organizationId),
        };
      const { amount_usd: amount, ...rest } = request.body;
      throw await quotes.intentRequired(organizationId, {
        ...rest,
        amount_usd: amount === undefined ? undefined : String(amount),
      });
    },
  );
}
