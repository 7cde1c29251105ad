// The card_processor rail: POST /v1/billing/checkout prices the intent and answers a checkout URL.
// CELLGATE_CARD_PROCESSOR picks who carries it: `stripe` (stripe.ts), a Stripe Checkout Session
// credited by Stripe's signed webhook; `local`, the built-in page for development, whose Pay
// button credits the payment once without charging any card; `off`, no card rail at all (the
// default on a public base URL without Stripe: the local page would mint money there).
import { transact } from '../../db/transaction.ts';
import { ApiError } from '../../lib/errors.ts';
import { constantTimeEqualHex, sha256Hex } from '../../lib/secrets.ts';
import type { BillingAccounts } from './accounts.ts';
import { micros, usdString, ZERO } from './money.ts';
import { billingOff } from './offers.ts';
import type { BillingQuotes, RequirementsQuery } from './quotes.ts';
import type { StripeCheckout } from './stripe.ts';
import type { PaymentsTable } from './tables.ts';
import { pendingPayment, type Priced, type RailDeps } from './payments.ts';

/** How long a checkout page takes a payment. */
export const CHECKOUT_TTL_MS = 30 * 60 * 1000;

export type CheckoutPage =
  | { status: 200; kind: 'pay' | 'paid'; payment: PaymentsTable }
  | { status: 404; kind: 'unknown' }
  | { status: 409; kind: 'expired'; payment: PaymentsTable }
  | { status: 409; kind: 'refused'; payment: PaymentsTable; detail: string };

/** The link of a 402's Stripe checkout: to the session (created on first use), or a page. */
export type StripeCheckoutLink = CheckoutPage | { status: 303; kind: 'redirect'; url: string };

export class CheckoutService {
  private readonly deps: RailDeps & {
    accounts: BillingAccounts;
    quotes: BillingQuotes;
    baseUrl: string;
    stripe?: StripeCheckout | null;
  };
  private readonly stripe: StripeCheckout | null;

  constructor(deps: CheckoutService['deps']) {
    this.deps = deps;
    this.stripe = deps.stripe ?? null;
  }

  /** Who carries new card payments; Stripe only with its keys (config.ts refuses it otherwise). */
  private get processor() {
    const processor = this.deps.offers.cardProcessor;
    return processor === 'stripe' && !this.stripe ? 'off' : processor;
  }

  async start(organizationId: string, query: Omit<RequirementsQuery, 'network'>) {
    if (!this.deps.accounts.enabled) throw billingOff();
    if (this.processor === 'off') {
      throw new ApiError(
        'conflict',
        'No card processor on this deployment (CELLGATE_CARD_PROCESSOR is off): pay with another rail of GET /v1/billing/payment-options.',
      );
    }
    const what = { intent: query.intent, ...(await this.deps.quotes.price(organizationId, query)) };
    if (this.processor === 'local' || !this.stripe) return this.open(organizationId, what);
    // With Stripe, the answer is the Checkout Session itself.
    const { payment } = await this.insert(organizationId, what);
    const session = await this.stripe.openSession(payment);
    return this.answer(payment, session.url, session.expiresAt);
  }

  /**
   * A checkout for an intent already priced (also the checkout_url of a 402's PaymentDetails).
   * With Stripe its URL leads to a Checkout Session created when it is first opened, so a 402
   * never waits on Stripe.
   */
  async open(organizationId: string, what: Priced) {
    if (this.processor === 'off') throw new Error('CheckoutService.open() without a card processor');
    const { payment, token } = await this.insert(organizationId, what);
    const path = payment.processor === 'stripe' ? '/v1/billing/stripe/checkout' : '/v1/billing/checkout';
    return this.answer(payment, `${this.deps.baseUrl}${path}/${payment.id}?token=${token}`, payment.expires_at);
  }

  /** A pending payment of `what`, open 30 minutes, on the configured processor. */
  private async insert(organizationId: string, what: Priced) {
    const { payment, token } = pendingPayment(this.deps.clock, organizationId, 'card_processor', what, CHECKOUT_TTL_MS);
    payment.processor = this.processor === 'stripe' ? 'stripe' : 'local';
    await this.deps.repo.insertPayment(payment);
    return { payment, token };
  }

  private answer(payment: PaymentsTable, checkoutUrl: string, expiresAt: string) {
    return {
      payment_id: payment.id,
      checkout_url: checkoutUrl,
      expires_at: expiresAt,
      amount_usd: usdString(micros(payment.amount_micros)),
      currency: 'USD',
      intent: payment.intent,
      ...(payment.tier ? { tier: payment.tier } : {}),
      ...(payment.cell_id ? { cell_id: payment.cell_id } : {}),
    };
  }

  /** The payment behind a checkout URL; unknown for a wrong id or token. */
  private async find(paymentId: string, token: string): Promise<PaymentsTable | null> {
    const payment = await this.deps.repo.payment(paymentId);
    return payment && constantTimeEqualHex(payment.token_hash, sha256Hex(token)) ? payment : null;
  }

  /** The local page of a payment: only the local processor's payments have one, and only while it is the processor. */
  async page(paymentId: string, token: string): Promise<CheckoutPage> {
    if (this.processor !== 'local') return { status: 404, kind: 'unknown' };
    const payment = await this.find(paymentId, token);
    if (!payment || (payment.processor ?? 'local') !== 'local') return { status: 404, kind: 'unknown' };
    return this.stateOf(payment);
  }

  private stateOf(payment: PaymentsTable): CheckoutPage {
    if (payment.status === 'succeeded') return { status: 200, kind: 'paid', payment };
    if (payment.expires_at <= this.deps.clock.now().toISOString()) return { status: 409, kind: 'expired', payment };
    return { status: 200, kind: 'pay', payment };
  }

  /**
   * The Pay button: credits the payment once, whatever the number of posts (only with the local
   * processor). Nothing is charged, so the balance ceiling is checked again here (a top-up may
   * have landed since the checkout started); a refusal writes nothing.
   */
  async pay(paymentId: string, token: string): Promise<CheckoutPage> {
    const page = await this.page(paymentId, token);
    if (page.kind !== 'pay') return page;
    const { payment } = page;
    if (!this.deps.accounts.enabled) return { status: 409, kind: 'expired', payment };
    try {
      await transact(this.deps.repo.db, async (tx) => {
        const now = this.deps.clock.now().toISOString();
        if (!(await this.deps.crediting.complete(tx, payment, now))) return;
        // Checked on the result, under applyPayment's lock of the account.
        await this.deps.accounts.assertBalanceRoom(payment.organization_id, ZERO, tx);
      });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'conflict')
        return { status: 409, kind: 'refused', payment, detail: error.message };
      throw error;
    }
    return { status: 200, kind: 'paid', payment: (await this.deps.repo.payment(paymentId)) as PaymentsTable };
  }

  /** A 402's Stripe checkout link: redirects to the payment's Checkout Session, created once. */
  async stripeLink(paymentId: string, token: string): Promise<StripeCheckoutLink> {
    const payment = await this.find(paymentId, token);
    if (!payment || payment.processor !== 'stripe' || !this.stripe) return { status: 404, kind: 'unknown' };
    const state = this.stateOf(payment);
    if (state.kind !== 'pay') return state;
    if (payment.external_url) return { status: 303, kind: 'redirect', url: payment.external_url };
    if (!this.deps.accounts.enabled) return { status: 409, kind: 'expired', payment };
    return { status: 303, kind: 'redirect', url: (await this.stripe.openSession(payment)).url };
  }
}
