// The pages of a card checkout's URL (public, not part of the API document): the built-in local
// processor's page, and a 402's Stripe link. POST /v1/billing/checkout is the create_checkout operation.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../http/types.ts';
import { safeNext, sendPage } from '../console/http.ts';
import type { CheckoutService } from './checkout.ts';
import { checkoutPage } from './checkout-pages.ts';

export function registerCheckoutRoutes(app: App, checkout: CheckoutService): void {
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
