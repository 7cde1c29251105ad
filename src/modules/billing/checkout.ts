// The card_processor rail's built-in local processor (for development; Stripe Checkout replaces
// it when configured): POST /v1/billing/checkout prices the intent and answers a checkout URL; the
// page there shows the amount and a Pay button whose form post credits the payment once.
import { transact } from '../../db/transaction.ts';
import type { Clock } from '../../lib/clock.ts';
import { ApiError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { constantTimeEqualHex, randomBase62, sha256Hex } from '../../lib/secrets.ts';
import { usdString } from './money.ts';
import type { BillingRepository } from './repository.ts';
import type { BillingService, Intent, RequirementsQuery } from './service.ts';
import type { PaymentsTable } from './tables.ts';

/** How long a checkout page takes a payment. */
export const CHECKOUT_TTL_MS = 30 * 60 * 1000;

export type CheckoutPage =
  | { status: 200; kind: 'pay' | 'paid'; payment: PaymentsTable }
  | { status: 404; kind: 'unknown' }
  | { status: 409; kind: 'expired'; payment: PaymentsTable };

export class CheckoutService {
  private readonly repo: BillingRepository;
  private readonly billing: BillingService;
  private readonly clock: Clock;
  private readonly baseUrl: string;

  constructor(deps: { repo: BillingRepository; billing: BillingService; clock: Clock; baseUrl: string }) {
    this.repo = deps.repo;
    this.billing = deps.billing;
    this.clock = deps.clock;
    this.baseUrl = deps.baseUrl;
  }

  async start(organizationId: string, query: Omit<RequirementsQuery, 'network'>) {
    if (!this.billing.enabled) throw new ApiError('billing_disabled', 'Billing is off on this deployment: nothing is charged or paid.');
    const { micros, tier, cellId } = await this.billing.price(organizationId, query);
    return this.open(organizationId, { intent: query.intent, micros, tier, cellId });
  }

  /** A checkout for an intent already priced (also the checkout_url of a 402's PaymentDetails). */
  async open(organizationId: string, what: { intent: Intent; micros: number; tier?: string; cellId?: string }) {
    const now = this.clock.now();
    const token = randomBase62(32);
    const payment: PaymentsTable = {
      id: newId('pay', this.clock, now),
      organization_id: organizationId,
      rail: 'card_processor',
      intent: what.intent,
      tier: what.tier ?? null,
      cell_id: what.cellId ?? null,
      amount_micros: what.micros,
      status: 'pending',
      token_hash: sha256Hex(token),
      expires_at: new Date(now.getTime() + CHECKOUT_TTL_MS).toISOString(),
      created_at: now.toISOString(),
      completed_at: null,
    };
    await this.repo.insertPayment(payment);
    return {
      payment_id: payment.id,
      checkout_url: `${this.baseUrl}/v1/billing/checkout/${payment.id}?token=${token}`,
      expires_at: payment.expires_at,
      amount_usd: usdString(what.micros),
      currency: 'USD',
      intent: what.intent,
      ...(what.tier ? { tier: what.tier } : {}),
      ...(what.cellId ? { cell_id: what.cellId } : {}),
    };
  }

  /** The payment behind a checkout URL; unknown for a wrong id or token. */
  private async find(paymentId: string, token: string): Promise<PaymentsTable | null> {
    const payment = await this.repo.payment(paymentId);
    return payment && constantTimeEqualHex(payment.token_hash, sha256Hex(token)) ? payment : null;
  }

  async page(paymentId: string, token: string): Promise<CheckoutPage> {
    const payment = await this.find(paymentId, token);
    if (!payment) return { status: 404, kind: 'unknown' };
    if (payment.status === 'succeeded') return { status: 200, kind: 'paid', payment };
    if (payment.expires_at <= this.clock.now().toISOString()) return { status: 409, kind: 'expired', payment };
    return { status: 200, kind: 'pay', payment };
  }

  /** The Pay button: credits the payment once, whatever the number of posts. */
  async pay(paymentId: string, token: string): Promise<CheckoutPage> {
    const page = await this.page(paymentId, token);
    if (page.kind !== 'pay') return page;
    if (!this.billing.enabled) return { status: 409, kind: 'expired', payment: page.payment };
    await transact(this.repo.db, async (tx) => {
      const now = this.clock.now().toISOString();
      if (!(await this.repo.completePayment(tx, paymentId, now))) return;
      const payment = page.payment;
      await this.billing.applyPayment(tx, { ...payment, amount_micros: Number(payment.amount_micros) });
    });
    return { status: 200, kind: 'paid', payment: (await this.repo.payment(paymentId)) as PaymentsTable };
  }
}
