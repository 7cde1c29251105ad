// What each payment intent costs an organization now (contract §7), within the money bounds:
// GET /v1/billing/x402/requirements, the 402 of paying an intent directly (x402 and MPP pay
// routes), and the price every rail's payment is opened at.
import type { Config } from '../../config.ts';
import { ApiError, invalidField } from '../../lib/errors.ts';
import type { CellsService } from '../cells/service.ts';
import type { BillingAccounts } from './accounts.ts';
import { keptOnBalance, owes, type Intent } from './lifecycle.ts';
import { dollars, parseUsd, plus, type Micros } from './money.ts';
import type { Network } from './networks.ts';
import { billingOff, type PaymentDetails, type PaymentOffers, type PriceSubject } from './offers.ts';
import { amountDue, renewalPrice, tierOf } from './pricing.ts';

export interface RequirementsQuery {
  intent: Intent;
  tier?: string;
  cell_id?: string;
  /** The query's text, checked here: a decimal with at most 2 decimals. */
  amount_usd?: string;
  network?: Network;
}

/** An intent's price, with what it buys. */
export type Price = PriceSubject & { micros: Micros };

export class BillingQuotes {
  private readonly deps: {
    accounts: BillingAccounts;
    offers: PaymentOffers;
    cells: CellsService;
    config: Pick<Config, 'prices' | 'maxPaymentMicros'>;
  };

  constructor(deps: BillingQuotes['deps']) {
    this.deps = deps;
  }

  private get prices() {
    return this.deps.config.prices;
  }

  /** What an intent costs this organization now, with where to pay it. */
  async requirements(organizationId: string, query: RequirementsQuery): Promise<PaymentDetails> {
    const x402 = this.deps.offers.x402(query.network);
    const { micros, ...what } = await this.price(organizationId, query);
    return this.deps.offers.details(query.intent, micros, what, x402);
  }

  /** The 402 of paying an intent directly (the pay operation, x402 and MPP pay routes): its PaymentDetails. */
  async intentRequired(
    organizationId: string,
    {
      amount_usd: amount,
      ...query
    }: Omit<RequirementsQuery, 'network' | 'amount_usd'> & { amount_usd?: string | number },
  ): Promise<ApiError> {
    if (!this.deps.accounts.enabled) return billingOff();
    const amount_usd = amount === undefined ? undefined : String(amount);
    const { micros, ...what } = await this.price(organizationId, { ...query, amount_usd });
    return this.deps.offers.paymentRequired(`Pay ${dollars(micros)} for ${query.intent}.`, query.intent, micros, what);
  }

  /**
   * What an intent costs this organization now (400, 404 and 409 as for the requirements), within
   * the money bounds: at most CELLGATE_MAX_PAYMENT_USD (400), and never taking the balance past
   * its ceiling (409). Every rail prices its payments here.
   */
  async price(organizationId: string, query: RequirementsQuery): Promise<Price> {
    const priced = await this.priceOf(organizationId, query);
    if (priced.micros > this.deps.config.maxPaymentMicros) {
      throw invalidField(
        'amount_usd',
        'too_large',
        `One payment is at most ${dollars(this.deps.config.maxPaymentMicros)}; this ${query.intent} is ${dollars(priced.micros)}.`,
      );
    }
    const kept = priced.startingBalance ?? keptOnBalance(query.intent, priced);
    if (kept > 0) await this.deps.accounts.assertBalanceRoom(organizationId, kept);
    return priced;
  }

  private amountOf(text: string): Micros {
    const amount = parseUsd(text);
    if (amount === null)
      throw invalidField(
        'amount_usd',
        'invalid_format',
        'amount_usd must be a decimal amount in dollars with at most 2 decimals, e.g. 25 or 12.50.',
      );
    return amount;
  }

  /** amount_usd of a top_up or a setup's starting balance: at least min_amount_usd. */
  private leastAmountOf(text: string): Micros {
    const amount = this.amountOf(text);
    if (amount < this.prices.minAmountMicros) {
      throw invalidField(
        'amount_usd',
        'too_small',
        `amount_usd must be at least ${dollars(this.prices.minAmountMicros)}.`,
      );
    }
    return amount;
  }

  private async priceOf(
    organizationId: string,
    query: RequirementsQuery,
  ): Promise<Price & { startingBalance?: Micros }> {
    if (query.amount_usd !== undefined) this.amountOf(query.amount_usd);
    switch (query.intent) {
      case 'setup': {
        const tier = tierOf(this.prices, query.tier);
        // A starting balance (contract §7, §10): paid with the first period, kept on the balance.
        if (query.amount_usd === undefined) return { micros: tier.priceMicros, tier: tier.name };
        const startingBalance = this.leastAmountOf(query.amount_usd);
        return { micros: plus(tier.priceMicros, startingBalance), tier: tier.name, startingBalance };
      }
      case 'renewal': {
        if (query.cell_id) {
          await this.deps.cells.getOwned(organizationId, query.cell_id);
          return { micros: this.prices.extraCellMicros, cellId: query.cell_id };
        }
        const account = await this.deps.accounts.standing(organizationId);
        const tier = tierOf(this.prices, query.tier ?? account.tier);
        return {
          micros: renewalPrice(this.prices, tier.name, await this.deps.accounts.activeCells(organizationId)),
          tier: tier.name,
        };
      }
      case 'top_up': {
        if (query.amount_usd === undefined)
          throw invalidField('amount_usd', 'required', 'amount_usd is required for a top_up.');
        return { micros: this.leastAmountOf(query.amount_usd) };
      }
      case 'reinstate': {
        const account = await this.deps.accounts.standing(organizationId);
        if (!this.deps.accounts.enabled || !owes(account.state)) {
          throw new ApiError('conflict', 'Nothing to reinstate: the organization is neither past due nor suspended.');
        }
        return {
          micros: amountDue(this.prices, account, await this.deps.accounts.activeCells(organizationId)),
          tier: account.tier ?? undefined,
        };
      }
      case 'create_cell':
        return { micros: this.prices.extraCellMicros };
    }
  }
}
