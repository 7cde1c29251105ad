// POST /v1/billing/x402/pay: pays an intent directly over x402 (contract §7); a PAYMENT-SIGNATURE
// is settled before the handler (x402.ts).
import { agentOf } from '../../http/auth.ts';
import { Body, Described } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { PaidIntent, PaymentIntentFields } from './schemas.ts';
import type { BillingQuotes } from './quotes.ts';
import type { BillingService } from './service.ts';
import { paidBy } from './x402.ts';

const X402Payment = PaidIntent({ $id: 'X402Payment', protocol: 'x402', paymentId: 'pay_... id of the settled quote' });

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
      if (paid) return { ...paid, billing: await billing.status(organizationId) };
      throw await quotes.intentRequired(organizationId, request.body);
    },
  );
}
