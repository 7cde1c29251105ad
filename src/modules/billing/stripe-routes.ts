// Stripe Checkout's webhook: POST /v1/billing/stripe/webhook, public, verified on its raw body, so
// JSON is not parsed in its scope (a 402's Stripe checkout link is in checkout-routes.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { notFound } from '../../lib/errors.ts';
import { Described } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { billingOff } from './offers.ts';
import type { StripeCheckout } from './stripe.ts';

const OUTCOMES = ['credited', 'already_paid', 'duplicate', 'unpaid', 'unknown_payment', 'mismatch', 'ignored'] as const;

const StripeWebhookReceipt = Type.Object(
  {
    received: Type.Literal(true),
    event_id: Type.String({ description: "Stripe's evt_... id." }),
    outcome: Type.Enum([...OUTCOMES], {
      description:
        'credited: the payment was credited now; already_paid: another event credited it; duplicate: this event was already received (nothing changed); ' +
        'unpaid: the session is not paid (payment_status); unknown_payment: no Stripe payment of this deployment; mismatch: the amount, currency or organization differs from the payment (logged, not credited); ' +
        'ignored: an event type that credits nothing (checkout.session.expired, ...).',
    }),
  },
  {
    $id: 'StripeWebhookReceipt',
    description: 'What a Stripe event did. Any 2xx acknowledges it to Stripe.',
    examples: [{ received: true, event_id: 'evt_1QxYzAbCdEfGhIjK', outcome: 'credited' }],
  },
);

export function registerStripeRoutes(app: App, deps: { stripe: StripeCheckout | null; enabled: () => boolean }): void {
  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    // The signature covers the exact bytes Stripe sent: keep the body as text in this scope.
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));

    scope.post(
      '/v1/billing/stripe/webhook',
      {
        config: {
          auth: 'public',
          errors: ['not_found', 'billing_disabled', 'payload_too_large', 'unsupported_media_type'],
        },
        schema: {
          operationId: 'receiveStripeWebhook',
          tags: ['Billing'],
          summary: "Receive Stripe's signed Checkout events",
          description:
            'Called by Stripe, not by agents: configure it as the endpoint of the Stripe account (events `checkout.session.completed`, ' +
            '`checkout.session.async_payment_succeeded`). The body is a Stripe Event (JSON), verified on its raw bytes against `Stripe-Signature` ' +
            `(HMAC-SHA256 with CELLGATE_STRIPE_WEBHOOK_SECRET, timestamp within 300 s). A paid session credits its payment once; every event is applied once. ` +
            '400 invalid_request for a missing or wrong signature or a stale timestamp; 404 not_found when Stripe is not configured; 409 billing_disabled when billing is off.',
          headers: Type.Object({
            'stripe-signature': Type.String({
              minLength: 1,
              maxLength: 4096,
              description: 't=<unix seconds>,v1=<hex HMAC-SHA256 of "{t}.{body}">, as Stripe sends it.',
            }),
          }),
          response: { 200: Described(StripeWebhookReceipt, 'The event was received (and applied once).') },
        },
        // Before the header check: a deployment without Stripe or billing says so first.
        preValidation: async () => {
          if (!deps.enabled()) throw billingOff();
          if (!deps.stripe) throw notFound('Stripe endpoint: Stripe Checkout is not configured on this deployment');
        },
      },
      async (request) => {
        const stripe = deps.stripe as StripeCheckout;
        const receipt = await stripe.webhook(
          typeof request.body === 'string' ? request.body : '',
          request.headers['stripe-signature'],
        );
        if (receipt.outcome === 'mismatch' || receipt.outcome === 'unknown_payment') {
          request.log.warn({ stripe_event: receipt.event_id, outcome: receipt.outcome }, 'Stripe event not credited');
        }
        return receipt;
      },
    );
  });
}
