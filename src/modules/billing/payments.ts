// A payment started on a rail: the pending `payments` row every rail opens for a priced intent
// (a card checkout, an x402 quote, an MPP challenge, a deposit's top-up) and completes once.
import type { Clock } from '../../lib/clock.ts';
import { ApiError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { randomBase62, sha256Hex } from '../../lib/secrets.ts';
import type { Intent } from './lifecycle.ts';
import { micros, parseUsd, usdString, ZERO, type Micros } from './money.ts';
import type { PaymentCrediting } from './crediting.ts';
import type { PaymentDetails, PaymentOffers } from './offers.ts';
import type { BillingRepository } from './repository.ts';
import type { PaymentsTable } from './tables.ts';

/** What every rail that takes payments is given: the rows, the offers, the crediting and the clock. */
export type RailDeps = { repo: BillingRepository; offers: PaymentOffers; crediting: PaymentCrediting; clock: Clock };

/**
 * A 400 for a payment credential that cannot be read (`detail`), with what its `field` must be
 * (`message`): x402's PAYMENT-SIGNATURE and `_meta["x402/payment"]`, MPP's Authorization.
 */
export const unreadable = (field: string, code: string, message: string, detail: string) =>
  new ApiError('invalid_request', detail, { errors: [{ field, code, message }] });

/** An intent with its price: what a payment pays for. */
export type Priced = { intent: Intent; micros: Micros; tier?: string; cellId?: string };

/** What the PaymentDetails of a 402 ask to pay. */
export const pricedOf = (details: PaymentDetails): Priced => ({
  intent: details.intent,
  micros: parseUsd(details.amount_usd) ?? ZERO,
  tier: details.tier,
  cellId: details.cell_id,
});

/** What paying an intent answers (schemas.ts PaidIntent, before the billing status after it). */
export const paidOf = (payment: Pick<PaymentsTable, 'id' | 'intent' | 'amount_micros'>) => ({
  payment_id: payment.id,
  intent: payment.intent,
  amount_usd: usdString(micros(payment.amount_micros)),
});

/**
 * A new pending payment of `what` on `rail`, open `ttlMs`; `token` is the secret of its page
 * (stored as its SHA-256; rails without a page just never show it). A row: its amount is a plain
 * number, as the column holds it.
 */
export function pendingPayment(
  clock: Clock,
  organizationId: string,
  rail: PaymentsTable['rail'],
  what: Omit<Priced, 'micros'> & { micros: number },
  ttlMs: number,
): { payment: PaymentsTable; token: string } {
  const now = clock.now();
  const token = randomBase62(32);
  const payment: PaymentsTable = {
    id: newId('pay', clock, now),
    organization_id: organizationId,
    rail,
    intent: what.intent,
    tier: what.tier ?? null,
    cell_id: what.cellId ?? null,
    amount_micros: what.micros,
    status: 'pending',
    token_hash: sha256Hex(token),
    expires_at: new Date(now.getTime() + ttlMs).toISOString(),
    created_at: now.toISOString(),
    completed_at: null,
  };
  return { payment, token };
}

/** An x402 top-up of what arrived without a quote of its amount: opened already paid (no time open). */
export const x402TopUp = (clock: Clock, organizationId: string, amount: Micros) =>
  pendingPayment(clock, organizationId, 'x402', { intent: 'top_up', micros: amount }, 0).payment;
