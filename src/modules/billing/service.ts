// The billing of an organization as its agents, the console and the status check read it
// (contract §7): its state, tier, balance and amount due, and the payment options it has.
import type { Config } from '../../config.ts';
import type { BillingAccounts } from './accounts.ts';
import { usdNumber } from './money.ts';
import type { PaymentOffers } from './offers.ts';
import { amountDue } from './pricing.ts';

// Where the tests and the console import them from.
export { addMonths, GRACE_MS, INTENTS, type Intent } from './lifecycle.ts';
export type { PaymentDetails } from './offers.ts';

export class BillingService {
  private readonly deps: {
    accounts: BillingAccounts;
    offers: PaymentOffers;
    config: Pick<Config, 'billing' | 'prices'>;
  };

  constructor(deps: BillingService['deps']) {
    this.deps = deps;
  }

  get enabled(): boolean {
    return this.deps.config.billing;
  }

  get prices() {
    return this.deps.config.prices;
  }

  /** The smallest top-up, in dollars. */
  get minAmountUsd(): number {
    return usdNumber(this.prices.minAmountMicros);
  }

  async status(organizationId: string) {
    const [account, balance, active] = await Promise.all([
      this.deps.accounts.standing(organizationId),
      this.deps.accounts.balance(organizationId),
      this.deps.accounts.activeCells(organizationId),
    ]);
    const included = account.tier ? (this.prices.tiers[account.tier]?.includedCells ?? 0) : 0;
    return {
      state: this.enabled ? account.state : ('exempt' as const),
      tier: account.tier,
      prepaid_balance_usd: usdNumber(balance),
      current_period_end: account.current_period_end,
      amount_due_usd: this.enabled ? usdNumber(amountDue(this.prices, account, active)) : 0,
      cells: { included, active },
    };
  }

  async paymentOptions(organizationId: string) {
    const balance = await this.deps.accounts.balance(organizationId);
    const x402 = this.deps.offers.x402();
    const mpp = this.deps.offers.mpp();
    const card = this.deps.offers.card();
    return {
      rails: this.deps.offers.rails(),
      prepaid_balance_usd: usdNumber(balance),
      min_amount_usd: usdNumber(this.prices.minAmountMicros),
      ...(x402 ? { x402 } : {}),
      ...(mpp ? { mpp } : {}),
      ...(card ? { card_processor: card } : {}),
    };
  }
}
