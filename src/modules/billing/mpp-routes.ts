// POST /v1/billing/mpp/pay, which pays an intent over MPP (contract §7; mpp.ts), and GET
// /.well-known/mpp, which describes the realm, methods and intents.
import { Type, type Static } from 'typebox';
import { Body, Described } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { ApiError, notFound } from '../../lib/errors.ts';
import { paidOf } from './payments.ts';
import { paymentCredentialOf, type MppPort } from './mpp-http.ts';
import { PaidIntent, PaymentIntentFields } from './schemas.ts';
import { INTENTS } from './lifecycle.ts';
import type { PaymentDetails } from './offers.ts';
import type { BillingQuotes } from './quotes.ts';
import type { BillingService } from './service.ts';

const MppPayment = PaidIntent({
  $id: 'MppPayment',
  protocol: 'MPP',
  paymentId: 'pay_... id of the payment the challenge opened',
});

const MppMethod = Type.Object(
  {
    method: Type.String({ description: 'The payment method, e.g. tempo.' }),
    intents: Type.Array(Type.String(), { description: 'The MPP intents the method takes (charge).' }),
    modes: Type.Array(Type.String(), {
      description: 'How the credential proves the payment (push: the payer broadcasts the transfer).',
    }),
    chain_id: Type.Integer({ description: 'The chain the transfer is made on.' }),
    currency: Type.String({ description: 'The token contract paid in.' }),
    decimals: Type.Integer({
      description: "The token's decimals: one base unit of a 6-decimal stablecoin is one micro-USD.",
    }),
    recipient: Type.String({ description: 'The address that receives the payment.' }),
  },
  { additionalProperties: true, description: 'A configured MPP method.' },
);

const MppDiscovery = Type.Object(
  {
    realm: Type.String({ description: 'The realm of the challenges: the host of the base URL.' }),
    scheme: Type.Literal('Payment', { description: 'The HTTP authentication scheme (draft-httpauth-payment).' }),
    methods: Type.Array(MppMethod),
    intents: Type.Array(Type.Enum([...INTENTS]), {
      description: "What a payment can be for (Cellgate's PaymentDetails intents).",
    }),
    currencies: Type.Array(Type.String(), { description: 'The currency prices are in.' }),
    pay_endpoint: Type.Object({
      method: Type.Literal('POST'),
      url: Type.String({ description: 'POST /v1/billing/mpp/pay on this deployment.' }),
      body: Type.Record(Type.String(), Type.String(), { description: 'The body fields it takes, each with a hint.' }),
    }),
    challenge_ttl_seconds: Type.Integer({ description: 'How long a challenge is open.' }),
    credential_header: Type.String({ description: 'The header a credential is sent in.' }),
  },
  {
    $id: 'MppDiscovery',
    description: 'How to pay Cellgate over MPP: realm, methods, intents and the pay endpoint.',
    examples: [
      {
        realm: 'cellgate.example.com',
        scheme: 'Payment',
        methods: [
          {
            method: 'tempo',
            intents: ['charge'],
            modes: ['push'],
            chain_id: 4217,
            currency: '0x20C000000000000000000000b9537d11c60E8b50',
            decimals: 6,
            recipient: '0x742d35Cc6634C0532925a3b844Bc454e4438f44e',
          },
        ],
        intents: [...INTENTS],
        currencies: ['USD'],
        pay_endpoint: {
          method: 'POST',
          url: 'https://cellgate.example.com/v1/billing/mpp/pay',
          body: { intent: INTENTS.join(' | '), tier: 'optional', cell_id: 'optional', amount_usd: 'for top_up' },
        },
        challenge_ttl_seconds: 300,
        credential_header: 'Authorization',
      },
    ],
  },
);

export function registerMppRoutes(
  app: App,
  deps: { billing: BillingService; quotes: BillingQuotes; mpp: MppPort },
): void {
  const { billing, quotes, mpp } = deps;
  app.post(
    '/v1/billing/mpp/pay',
    {
      config: {
        auth: 'agent',
        scope: 'billing:write',
        paymentCredential: true,
        errors: ['payment_required', 'not_found', 'conflict', 'billing_disabled'],
      },
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
    },
    async (request, reply) => {
      const credential = paymentCredentialOf(request);
      if (credential) {
        const { payment, receipt } = await mpp.pay(credential, request.body, request.agent?.organizationId);
        reply.header('payment-receipt', receipt);
        return { ...paidOf(payment), billing: await billing.status(payment.organization_id) };
      }
      const organizationId = request.agent?.organizationId;
      if (!organizationId)
        throw new ApiError(
          'unauthenticated',
          'Send your API key as "Authorization: Bearer <api key>", or an MPP credential as "Authorization: Payment <credential>".',
        );
      const required = await quotes.intentRequired(organizationId, request.body);
      if (required.code !== 'payment_required') throw required;
      throw await mpp.required(organizationId, required.extensions?.payment as PaymentDetails, required.message);
    },
  );

  app.get(
    '/.well-known/mpp',
    {
      config: { auth: 'public', errors: ['not_found'] },
      schema: {
        operationId: 'getMppDiscovery',
        tags: ['Billing'],
        summary: 'MPP discovery document',
        description:
          'The realm, the configured methods (their chain, token and recipient), the intents and the pay endpoint of the MPP rail. 404 `not_found` when MPP is not offered on this deployment.',
        response: { 200: Described(MppDiscovery, 'The MPP discovery document.') },
      },
    },
    async () => {
      const discovery = mpp.discovery();
      if (!discovery) throw notFound('MPP configuration: MPP is not offered on this deployment');
      // The port's document is untyped; the response schema above is its shape (the tests compare them).
      return discovery as Static<typeof MppDiscovery>;
    },
  );
}
