// Period ends (contract §7), the worker step of src/workers/billing-periods.ts: the renewal is
// debited from the prepaid balance when it covers it (the ledger reference makes it once per
// period), else the account lapses. lifecycle.ts decides; this reads the facts and writes the answer.
import { transact } from '../../db/transaction.ts';
import type { EventsService } from '../events/service.ts';
import type { AccountDeps } from './accounts.ts';
import { atPeriodEnd, GRACE_MS, periodOver } from './lifecycle.ts';
import { micros, negated, usdNumber, usdString } from './money.ts';
import { renewalPrice } from './pricing.ts';

const PERIOD_BATCH = 100;

export class BillingPeriods {
  private readonly deps: AccountDeps & { events: EventsService };

  constructor(deps: BillingPeriods['deps']) {
    this.deps = deps;
  }

  /** Closes the periods that are over, a batch at a time; how many accounts changed. */
  async closePeriods(): Promise<number> {
    if (!this.deps.config.billing) return 0;
    const start = this.deps.clock.now();
    const due = await this.deps.repo.dueAccounts(
      start.toISOString(),
      new Date(start.getTime() - GRACE_MS).toISOString(),
      PERIOD_BATCH,
    );
    let changed = 0;
    for (const { organization_id: organizationId } of due) {
      if (await this.close(organizationId, await this.deps.accounts.activeCells(organizationId))) changed += 1;
    }
    return changed;
  }

  private close(organizationId: string, activeCells: number): Promise<boolean> {
    return transact(this.deps.repo.db, async (tx) => {
      const now = this.deps.clock.now();
      const nowIso = now.toISOString();
      const account = await this.deps.repo.lockAccount(tx, organizationId, nowIso);
      if (!periodOver(account, now)) return false;
      const balance = micros(account.prepaid_balance_micros);
      const renewal = renewalPrice(this.deps.config.prices, account.tier, activeCells);
      const decision = atPeriodEnd(account, balance >= renewal, now);
      if (!decision) return false;
      if (decision.kind === 'renew') {
        await this.deps.repo.appendLedger(tx, {
          organization_id: organizationId,
          kind: 'renewal',
          amount_micros: negated(renewal),
          reference: `renewal:${organizationId}:${decision.end}`,
          description: `${account.tier} period from ${decision.end}`,
          created_at: nowIso,
        });
        await this.deps.accounts.cellMonthUsage(tx, organizationId, account.tier, activeCells, nowIso);
      } else {
        await this.deps.events.emit(tx, {
          organizationId,
          type: 'billing.payment_failed',
          data: {
            organization_id: organizationId,
            intent: 'renewal',
            amount_usd: usdString(renewal),
            reason: 'insufficient_balance',
            prepaid_balance_usd: usdNumber(balance),
            period_end: decision.end,
          },
        });
      }
      await this.deps.accounts.setAccount(tx, organizationId, account, decision.next, now);
      return true;
    });
  }
}
