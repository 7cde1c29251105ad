// The billing account of an organization: its standing (state, tier, paid period), its prepaid
// balance and its ceiling, the cells that count against its tier, and the one place its state is
// written, which keeps the cells' suspension and billing.status_changed in step with it.
import type { Config } from '../../config.ts';
import type { Executor } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { ApiError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { CellsService } from '../cells/service.ts';
import type { EventsService } from '../events/service.ts';
import { NO_ACCOUNT, type Standing } from './lifecycle.ts';
import { dollars, MAX_BALANCE_MICROS, plus, times, type Micros } from './money.ts';
import { extraCells, tierOf } from './pricing.ts';
import type { BillingRepository } from './repository.ts';

/** What the services over accounts are given: the rows, the accounts, the clock and the configuration. */
export type AccountDeps = {
  repo: BillingRepository;
  accounts: BillingAccounts;
  clock: Clock;
  config: Pick<Config, 'billing' | 'prices'>;
};

export class BillingAccounts {
  private readonly deps: {
    repo: BillingRepository;
    cells: CellsService;
    events: EventsService;
    clock: Clock;
    config: Pick<Config, 'billing' | 'prices'>;
  };

  constructor(deps: BillingAccounts['deps']) {
    this.deps = deps;
  }

  /** CELLGATE_BILLING: off, nothing is refused, debited or paid. */
  get enabled(): boolean {
    return this.deps.config.billing;
  }

  async standing(organizationId: string, ex: Executor = this.deps.repo.db): Promise<Standing> {
    return (await this.deps.repo.account(ex, organizationId)) ?? NO_ACCOUNT;
  }

  balance(organizationId: string, ex: Executor = this.deps.repo.db): Promise<Micros> {
    return this.deps.repo.balance(ex, organizationId);
  }

  /** Cells that count against the tier: every cell not released. */
  async activeCells(organizationId: string, ex?: Executor): Promise<number> {
    return (await this.deps.cells.counts(organizationId, ex)).total;
  }

  /**
   * 409 when adding `amount` (ZERO: nothing more) would take the balance past 1,000,000,000.00. In
   * a transaction, after lockAccount, so concurrent credits cannot pass it together on PostgreSQL;
   * the 409 rolls back everything the transaction wrote.
   */
  async assertBalanceRoom(organizationId: string, amount: Micros, ex: Executor = this.deps.repo.db): Promise<void> {
    const balance = await this.deps.repo.balance(ex, organizationId);
    if (plus(balance, amount) > MAX_BALANCE_MICROS) {
      throw new ApiError(
        'conflict',
        `The prepaid balance (${dollars(balance)}) would pass its ceiling of ${dollars(MAX_BALANCE_MICROS)} with ${dollars(amount)} more.`,
      );
    }
  }

  /** Writes the account's new values; emits billing.status_changed when the state changes. */
  async setAccount(
    tx: Executor,
    organizationId: string,
    before: Standing,
    next: Partial<Standing>,
    now: Date,
  ): Promise<void> {
    const after = { ...before, ...next };
    await this.deps.repo.updateAccount(tx, organizationId, { ...next, updated_at: now.toISOString() });
    if ((after.state === 'suspended') !== (before.state === 'suspended'))
      await this.deps.cells.setSuspended(tx, organizationId, after.state === 'suspended');
    if (after.state !== before.state) {
      await this.deps.events.emit(tx, {
        organizationId,
        type: 'billing.status_changed',
        data: {
          organization_id: organizationId,
          state: after.state,
          previous_state: before.state,
          tier: after.tier,
          current_period_end: after.current_period_end,
        },
      });
    }
  }

  /** The cell-months beyond the tier's included cells that a period bills: one usage record. */
  async cellMonthUsage(
    tx: Executor,
    organizationId: string,
    tierName: string | null,
    activeCells: number,
    at: string,
  ): Promise<void> {
    const extra = extraCells(tierOf(this.deps.config.prices, tierName), activeCells);
    await this.cellMonths(tx, organizationId, null, extra, at);
  }

  /** `quantity` cell-months (of one cell, or of the organization) as one usage record; none for 0. */
  async cellMonths(tx: Executor, organizationId: string, cellId: string | null, quantity: number, at: string) {
    if (quantity === 0) return;
    const unit = this.deps.config.prices.extraCellMicros;
    await this.deps.repo.insertUsage(tx, [
      {
        id: newId('usg', this.deps.clock),
        organization_id: organizationId,
        cell_id: cellId,
        message_id: null,
        type: 'cell_month',
        quantity,
        unit_price_micros: unit,
        amount_micros: times(unit, quantity),
        created_at: at,
      },
    ]);
  }
}
