// The card checkout: POST /v1/billing/checkout (agent), and the pages of a checkout URL (public, not
// part of the API document): the built-in local processor's page, and a 402's Stripe link.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { agentOf } from '../../http/auth.ts';
import { Body, Described, Timestamp } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { safeNext, sendPage } from '../console/http.ts';
import type { CheckoutService } from './checkout.ts';
import { checkoutPage } from './checkout-pages.ts';
import { PaymentIntentFields } from './schemas.ts';
import { INTENTS } from './lifecycle.ts';

const Checkout = Type.Object(
  {
    payment_id: Type.String({ description: 'pay_... id' }),
    checkout_url: Type.String({ format: 'uri', description: 'Open it to pay by card.' }),
    expires_at: Timestamp,
    amount_usd: Type.String(),
    currency: Type.String(),
    intent: Type.Enum([...INTENTS]),
    tier: Type.Optional(Type.String()),
    cell_id: Type.Optional(Type.String()),
  },
  {
    $id: 'Checkout',
    description: 'A card checkout for a payment intent.',
    examples: [
      {
        payment_id: 'pay_01jdx4c5d6e7f8g9h0j1k2m3n4',
        checkout_url:
          'https://api.cellgate.example/v1/billing/checkout/pay_01jdx4c5d6e7f8g9h0j1k2m3n4?token=Qm9yZWRBcGVzQ2x1Yk1lbWJlcnNoaXA',
        expires_at: '2026-11-21T12:30:00.000Z',
        amount_usd: '20.00',
        currency: 'USD',
        intent: 'setup',
        tier: 'starter',
      },
    ],
  },
);

export function registerCheckoutRoutes(app: App, checkout: CheckoutService): void {
  app.post(
    '/v1/billing/checkout',
    {
      config: { auth: 'agent', scope: 'billing:write', errors: ['not_found', 'conflict', 'billing_disabled'] },
      schema: {
        operationId: 'createCheckout',
        tags: ['Billing'],
        summary: 'Start a card checkout for a payment intent',
        description:
          'Prices the intent as GET /v1/billing/x402/requirements does; open checkout_url to pay. 400 when the amount passes CELLGATE_MAX_PAYMENT_USD; ' +
          '409 billing_disabled when billing is off, 409 conflict when the deployment has no card processor (CELLGATE_CARD_PROCESSOR=off) or the payment would take the prepaid balance past 1,000,000,000.00.',
        body: Body(PaymentIntentFields, { examples: [{ intent: 'top_up', amount_usd: '25.00' }] }),
        response: { 201: Described(Checkout, 'The checkout, open until expires_at.') },
      },
    },
    async (request, reply) => {
      const { amount_usd: amount, ...rest } = request.body;
      const started = await checkout.start(agentOf(request).organizationId, {
        ...rest,
        amount_usd: amount === undefined ? undefined : String(amount),
      });
      return reply.code(201).send(started);
    },
  );

  const PageParams = Type.Object({ payment_id: Type.String({ minLength: 1, maxLength: 64 }) });
  const token = Type.String({ minLength: 1, maxLength: 64 });
  const PageQuery = Type.Object({
    token,
    // The console page the payment started from; anything but a console path is ignored.
    return: Type.Optional(Type.String({ maxLength: 2048 })),
  });
  // The page's form posts application/x-www-form-urlencoded: parsed in this scope only.
  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 1024 },
      (_request, _body, done) => done(null, {}),
    );
    // The console's page headers (no framing, no caching, a strict CSP), but no referrer at all:
    // the page's URL carries its token.
    scope.addHook('onSend', async (_request, reply, payload) => {
      reply.header('referrer-policy', 'no-referrer');
      return payload;
    });
    for (const [method, answer] of [
      ['GET', checkout.page],
      ['POST', checkout.pay],
    ] as const) {
      scope.route({
        method,
        url: '/v1/billing/checkout/:payment_id',
        config: { auth: 'public' },
        schema: { hide: true, params: PageParams, querystring: PageQuery },
        handler: async (request, reply) => {
          const page = await answer.call(checkout, request.params.payment_id, request.query.token);
          return sendPage(reply, page.status, checkoutPage(page, request.url, safeNext(request.query.return)));
        },
      });
    }
    // A 402's Stripe checkout link: opens the payment's Checkout Session and redirects to it.
    scope.get(
      '/v1/billing/stripe/checkout/:payment_id',
      { config: { auth: 'public' }, schema: { hide: true, params: PageParams, querystring: Type.Object({ token }) } },
      async (request, reply) => {
        const link = await checkout.stripeLink(request.params.payment_id, request.query.token);
        if (link.kind === 'redirect')
          return reply.code(303).header('location', link.url).header('cache-control', 'no-store').send();
        return sendPage(reply, link.status, checkoutPage(link, request.url));
      },
    );
  });
}
