// Stripe Checkout on the card_processor rail (configured with CELLGATE_STRIPE_*): a payment is a
// Checkout Session for its amount, and it is credited only by Stripe's signed
// checkout.session.completed webhook, once per payment whatever the replays, through the same
// crediting path as the local card page (PaymentCrediting.complete).
import Stripe from 'stripe';
import type { StripeConfig } from '../../config.ts';
import { transact } from '../../db/transaction.ts';
import { ApiError, invalidField } from '../../lib/errors.ts';
import type { RailDeps } from './payments.ts';
import type { PaymentsTable, StripeEventOutcome } from './tables.ts';

/** How old a signed webhook may be (Stripe's default tolerance), in seconds. */
export const STRIPE_TOLERANCE_S = 300;
/**
 * A Checkout Session lives 30 minutes (Stripe's minimum) plus a minute of slack, so that a clock
 * slightly behind Stripe's never asks for less than the minimum.
 */
export const STRIPE_SESSION_TTL_S = 31 * 60;
/** The events that may complete a payment; Checkout sends them with the session as data.object. */
const PAYING_EVENTS = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded']);

/** A payment's amount in cents, rounded up (an amount to pay is never below its price). */
export const centsOf = (micros: number) => Math.ceil(micros / 10_000);

function client(config: StripeConfig): Stripe {
  const base = config.apiBase ? new URL(config.apiBase) : null;
  return new Stripe(config.secretKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === 'https:' ? 443 : 80),
          protocol: base.protocol === 'https:' ? 'https' : 'http',
        }
      : {}),
  });
}

export class StripeCheckout {
  private readonly deps: Omit<RailDeps, 'offers'> & { config: StripeConfig; consoleUrl: string };
  private readonly stripe: Stripe;

  constructor(deps: StripeCheckout['deps']) {
    this.deps = deps;
    this.stripe = client(deps.config);
  }

  /**
   * Creates the Checkout Session of a pending payment and records it on the payment (once: when
   * two requests race, the first recorded session wins and is answered to both).
   */
  async openSession(payment: PaymentsTable) {
    const micros = Number(payment.amount_micros);
    const what = `Cellgate ${payment.intent.replace('_', ' ')}${payment.tier ? ` (${payment.tier})` : ''}`;
    const metadata = { payment_id: payment.id, organization_id: payment.organization_id, intent: payment.intent };
    let session: Stripe.Checkout.Session;
    try {
      session = await this.stripe.checkout.sessions.create(
        {
          mode: 'payment',
          line_items: [
            {
              quantity: 1,
              price_data: { currency: 'usd', unit_amount: centsOf(micros), product_data: { name: what } },
            },
          ],
          client_reference_id: payment.id,
          metadata,
          payment_intent_data: { metadata },
          success_url: `${this.deps.consoleUrl}/billing?checkout=succeeded&payment_id=${payment.id}`,
          cancel_url: `${this.deps.consoleUrl}/billing?checkout=canceled&payment_id=${payment.id}`,
          expires_at: Math.floor(this.deps.clock.now().getTime() / 1000) + STRIPE_SESSION_TTL_S,
        },
        // Stripe keeps the answer of a key for 24 hours: a retried create is the same session.
        { idempotencyKey: `checkout:${payment.id}` },
      );
    } catch (error) {
      throw checkoutError(error);
    }
    if (!session.url) throw new Error(`Stripe answered Checkout Session ${session.id} without a url`);
    const opened = { id: session.id, url: session.url, expiresAt: new Date(session.expires_at * 1000).toISOString() };
    if (await this.deps.repo.setCheckoutSession(payment.id, opened)) return opened;
    const recorded = await this.deps.repo.payment(payment.id);
    return {
      id: String(recorded?.external_id),
      url: String(recorded?.external_url),
      expiresAt: String(recorded?.expires_at),
    };
  }

  /** Verifies a webhook delivery's signature and timestamp; 400 invalid_request otherwise. */
  private verify(rawBody: string, signature: string): Stripe.Event {
    try {
      return this.stripe.webhooks.constructEvent(
        rawBody,
        signature,
        this.deps.config.webhookSecret,
        STRIPE_TOLERANCE_S,
        undefined,
        this.deps.clock.now().getTime(),
      );
    } catch (error) {
      // Stripe's first sentence says which check failed (no matching signature, unreadable header, tolerance).
      const reason =
        error instanceof Stripe.errors.StripeSignatureVerificationError
          ? error.message.split(/\.\s/)[0].trim()
          : 'the body is not a JSON event';
      throw invalidField('stripe-signature', 'invalid_signature', `The Stripe-Signature does not verify: ${reason}.`);
    }
  }

  /**
   * Applies a signed Stripe event once: a paid checkout.session.completed (or
   * async_payment_succeeded) credits its payment; every other event, and a replay, changes nothing.
   */
  async webhook(rawBody: string, signature: string) {
    const event = this.verify(rawBody, signature);
    return transact(this.deps.repo.db, async (tx) => {
      const now = this.deps.clock.now().toISOString();
      if (
        !(await this.deps.repo.insertStripeEvent(tx, {
          id: event.id,
          type: event.type,
          payment_id: null,
          outcome: null,
          received_at: now,
        }))
      ) {
        return { received: true as const, event_id: event.id, outcome: 'duplicate' as const };
      }
      let outcome: StripeEventOutcome = 'ignored';
      let paymentId: string | null = null;
      if (PAYING_EVENTS.has(event.type)) {
        const session = event.data.object as Stripe.Checkout.Session;
        paymentId = session.client_reference_id ?? session.metadata?.payment_id ?? null;
        const payment = paymentId ? await this.deps.repo.payment(paymentId, tx) : undefined;
        if (!payment || payment.processor !== 'stripe') {
          outcome = 'unknown_payment';
          paymentId = payment ? paymentId : null;
        } else if (
          session.metadata?.organization_id !== payment.organization_id ||
          session.currency !== 'usd' ||
          session.amount_total !== centsOf(Number(payment.amount_micros))
        ) {
          outcome = 'mismatch';
        } else if (session.payment_status !== 'paid') {
          outcome = 'unpaid';
        } else {
          outcome = (await this.deps.crediting.complete(tx, payment, now)) ? 'credited' : 'already_paid';
        }
      }
      await this.deps.repo.setStripeEventOutcome(tx, event.id, outcome, paymentId);
      return { received: true as const, event_id: event.id, outcome };
    });
  }
}

/** A Stripe failure at checkout: 503 (retry) when Stripe is unreachable or busy; else a 500. */
function checkoutError(error: unknown): Error {
  const transient =
    error instanceof Stripe.errors.StripeConnectionError ||
    error instanceof Stripe.errors.StripeRateLimitError ||
    (error instanceof Stripe.errors.StripeError && (error.statusCode ?? 0) >= 500);
  if (!transient) return error instanceof Error ? error : new Error(String(error));
  return new ApiError('unavailable', 'The card processor (Stripe) is unreachable; retry in a few seconds.', {
    headers: { 'Retry-After': '5' },
  });
}
