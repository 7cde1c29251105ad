// Crediting a payment (contract §7), in the transaction that marks it succeeded, whatever its rail:
// its amount is credited to the ledger (its rail reference makes that once), then its intent
// applied (lifecycle.ts: what buys a period, what stays on the balance).
import type { Executor } from '../../db/schema.ts';
import type { EventsService } from '../events/service.ts';
import type { AccountDeps } from './accounts.ts';
import { buysPeriod, paidPeriodEnd } from './lifecycle.ts';
import { micros, negated, usdString, type Micros } from './money.ts';
import { tierOf } from './pricing.ts';
import type { PaymentsTable } from './tables.ts';

/** A payment being credited: its row. */
type CreditedPayment = Pick<
  PaymentsTable,
  'id' | 'organization_id' | 'rail' | 'intent' | 'tier' | 'cell_id' | 'amount_micros'
>;

export class PaymentCrediting {
  private readonly deps: AccountDeps & { events: EventsService };

  constructor(deps: PaymentCrediting['deps']) {
    this.deps = deps;
  }

  /** Marks a pending payment succeeded and credits it; false (nothing done) when it was not pending. */
  async complete(tx: Executor, payment: CreditedPayment, at: string): Promise<boolean> {
    if (!(await this.deps.repo.completePayment(tx, payment.id, at))) return false;
    await this.applyPayment(tx, payment);
    return true;
  }

  async applyPayment(tx: Executor, payment: CreditedPayment): Promise<void> {
    const now = this.deps.clock.now();
    const nowIso = now.toISOString();
    const organizationId = payment.organization_id;
    const amount = micros(payment.amount_micros);
    const account = await this.deps.repo.lockAccount(tx, organizationId, nowIso);
    /** A ledger row of this payment, referenced `<prefix>:<payment id>` (once per payment). */
    const ledger = (kind: string, moved: Micros, description: string, prefix = kind) =>
      this.deps.repo.appendLedger(tx, {
        organization_id: organizationId,
        kind,
        amount_micros: moved,
        reference: `${prefix}:${payment.id}`,
        description,
        created_at: nowIso,
      });
    if (!(await ledger('payment', amount, payment.intent, payment.rail))) return;
    if (payment.intent === 'create_cell') {
      // The cell is bought now; the next POST /v1/cells consumes the credit.
      await ledger('create_cell', negated(amount), 'one cell');
      await this.deps.repo.addCellCredit(tx, organizationId);
    }
    if (buysPeriod(payment.intent, payment.cell_id)) {
      const tier = tierOf(this.deps.config.prices, payment.tier ?? account.tier);
      // A setup paid with a starting balance buys the period at its price and keeps the rest.
      const period = payment.intent === 'setup' && amount > tier.priceMicros ? tier.priceMicros : amount;
      await ledger(payment.intent, negated(period), tier.name);
      if (payment.intent !== 'setup')
        await this.deps.accounts.cellMonthUsage(
          tx,
          organizationId,
          tier.name,
          await this.deps.accounts.activeCells(organizationId, tx),
          nowIso,
        );
      await this.deps.accounts.setAccount(
        tx,
        organizationId,
        account,
        { state: 'active', tier: tier.name, current_period_end: paidPeriodEnd(account, payment.intent, now) },
        now,
      );
    }
    await this.deps.events.emit(tx, {
      organizationId,
      type: 'billing.payment_succeeded',
      data: {
        payment_id: payment.id,
        organization_id: organizationId,
        rail: payment.rail,
        intent: payment.intent,
        tier: payment.tier,
        cell_id: payment.cell_id,
        amount_usd: usdString(amount),
      },
    });
  }
}
