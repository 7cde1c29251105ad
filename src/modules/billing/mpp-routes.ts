// POST /v1/billing/mpp/pay: pays an intent over MPP (contract §7). With the agent's key it answers
// the intent's 402 with `WWW-Authenticate: Payment` challenges; retried with
// `Authorization: Payment <credential>` it verifies and credits the payment once and answers 200
// with `Payment-Receipt`. GET /.well-known/mpp describes the realm, methods and intents.
import { Type } from 'typebox';
import { Body, Described } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { ApiError, notFound } from '../../lib/errors.ts';
import { usdString } from './money.ts';
import { paymentCredentialOf, type MppPort } from './mpp-http.ts';
import { BillingStatus, PaymentIntentFields } from './schemas.ts';
import { INTENTS, type BillingService, type PaymentDetails } from './service.ts';

const MppPayment = Type.Object({
  payment_id: Type.String({ description: 'pay_... id of the payment the challenge opened' }),
  intent: Type.Enum([...INTENTS]),
  amount_usd: Type.String(),
  billing: BillingStatus,
}, {
  $id: 'MppPayment',
  description: 'An intent paid over MPP, with the billing status after it.',
  examples: [{
    payment_id: 'pay_01jdx4c5d6e7f8g9h0j1k2m3n4',
    intent: 'top_up',
    amount_usd: '25.00',
    billing: { state: 'active', tier: 'starter', prepaid_balance_usd: 25, current_period_end: '2026-12-21T12:00:00.000Z', amount_due_usd: 0, cells: { included: 1, active: 1 } },
  }],
});

export function registerMppRoutes(app: App, deps: { billing: BillingService; mpp: MppPort }): void {
  const { billing, mpp } = deps;
  app.post('/v1/billing/mpp/pay', {
    config: { auth: 'agent', scope: 'billing:write', paymentCredential: true, errors: ['payment_required', 'not_found', 'conflict', 'billing_disabled'] },
    schema: {
      operationId: 'payWithMpp',
      tags: ['Billing'],
      summary: 'Pay an intent over MPP',
      description:
        'With the API key: 402 with the PaymentDetails of the intent and a `WWW-Authenticate: Payment` challenge per configured method ' +
        '(draft-httpauth-payment; the challenge id is an HMAC over realm, method, intent, request and expiry; open 5 minutes). ' +
        'Retried with `Authorization: Payment <credential>` (the key is then not needed: the challenge names the organization; ' +
        'or `Payment-Authorization` beside the key): the challenge and the proof are verified, the payment is credited once and its intent applied; ' +
        '200 with `Payment-Receipt`. A credential used before is 409 `conflict`; a refused one is 402 with the reason and a fresh challenge. ' +
        '409 `conflict` also when MPP is not configured here.',
      body: Body(PaymentIntentFields, { examples: [{ intent: 'top_up', amount_usd: '25.00' }] }),
      response: { 200: Described(MppPayment, 'The intent is paid; the Payment-Receipt header carries the receipt.') },
    },
  }, async (request, reply) => {
    const credential = paymentCredentialOf(request);
    if (credential) {
      const { payment, receipt } = await mpp.pay(credential, request.body, request.agent?.organizationId);
      reply.header('payment-receipt', receipt);
      return { payment_id: payment.id, intent: payment.intent, amount_usd: usdString(Number(payment.amount_micros)), billing: await billing.status(payment.organization_id) };
    }
    const organizationId = request.agent?.organizationId;
    if (!organizationId) throw new ApiError('unauthenticated', 'Send your API key as "Authorization: Bearer <api key>", or an MPP credential as "Authorization: Payment <credential>".');
    const { amount_usd: amount, ...rest } = request.body;
    const required = await billing.intentRequired(organizationId, { ...rest, amount_usd: amount === undefined ? undefined : String(amount) });
    if (required.code !== 'payment_required') throw required;
    throw await mpp.required(organizationId, required.extensions?.payment as PaymentDetails, required.message);
  });

  app.get('/.well-known/mpp', { config: { auth: 'public' }, schema: { hide: true } }, async () => {
    const discovery = mpp.discovery();
    if (!discovery) throw notFound('MPP configuration: MPP is not offered on this deployment');
    return discovery;
  });
}
