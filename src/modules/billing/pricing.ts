// Prices (contract §7): the defaults, overridden field by field by CELLGATE_PRICES (JSON, dollar
// amounts as numbers). Parsed once at start; a bad value stops the process with a clear message.
// Then what a tier and its renewal cost, from the prices alone.
import { invalidField } from '../../lib/errors.ts';
import { owes, type Standing } from './lifecycle.ts';
import { micros, MICROS_PER_USD, plus, times, usd as dollars, ZERO, type Micros } from './money.ts';

export interface Tier {
  priceMicros: Micros;
  includedCells: number;
}

export interface Prices {
  tiers: Record<string, Tier>;
  extraCellMicros: Micros;
  smsSegmentMicros: Micros;
  mmsMicros: Micros;
  minAmountMicros: Micros;
}

export const DEFAULT_PRICES: Prices = {
  tiers: {
    starter: { priceMicros: dollars(20), includedCells: 1 },
    pro: { priceMicros: dollars(100), includedCells: 10 },
  },
  extraCellMicros: dollars(8),
  smsSegmentMicros: micros(10_000),
  mmsMicros: micros(30_000),
  minAmountMicros: dollars(5),
};

/** The tier of a setup when none is named. */
export const DEFAULT_TIER = 'starter';

/** A tier of the price list by name (the default tier for none); 400 naming `field` otherwise. */
export function tierOf(prices: Prices, name: string | null | undefined, field = 'tier'): Tier & { name: string } {
  const tierName = name ?? DEFAULT_TIER;
  const tier = prices.tiers[tierName];
  if (!tier)
    throw invalidField(field, 'invalid_value', `${field} must be one of: ${Object.keys(prices.tiers).join(', ')}.`);
  return { name: tierName, ...tier };
}

/** Cells beyond those the tier includes: each is billed a cell-month per period. */
export const extraCells = (tier: Tier, activeCells: number): number => Math.max(0, activeCells - tier.includedCells);

/** A period of the tier with the organization's cells beyond those included. */
export function renewalPrice(prices: Prices, tierName: string | null, activeCells: number): Micros {
  const tier = tierOf(prices, tierName);
  return plus(tier.priceMicros, times(prices.extraCellMicros, extraCells(tier, activeCells)));
}

/** What an organization owes: the renewal when past due or suspended, else nothing. */
export function amountDue(prices: Prices, account: Standing, activeCells: number): Micros {
  return owes(account.state) ? renewalPrice(prices, account.tier, activeCells) : ZERO;
}

const FIELDS = {
  extra_cell_usd: 'extraCellMicros',
  sms_segment_usd: 'smsSegmentMicros',
  mms_usd: 'mmsMicros',
  min_amount_usd: 'minAmountMicros',
} as const;
const TIER_NAME = /^[a-z][a-z0-9_]{0,31}$/;

export class PricesError extends Error {}

/** A dollar amount as a JSON number (20, 0.01) or a decimal string ("20.00", "0.01"). */
function usd(raw: unknown, where: string): Micros {
  const value = typeof raw === 'string' && /^\d{1,7}(\.\d{1,6})?$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1_000_000) {
    throw new PricesError(`${where} must be a dollar amount from 0 to 1000000 (a number or a decimal string)`);
  }
  const amount = Math.round(value * MICROS_PER_USD);
  if (Math.abs(amount - value * MICROS_PER_USD) > 1e-6) throw new PricesError(`${where} has more than 6 decimals`);
  return micros(amount);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `{"tiers": {"starter": {"usd": "25.00", "cells": 1}, ...}, "extra_cell_usd": "8.00",
 * "sms_segment_usd": "0.01", "mms_usd": "0.03", "min_amount_usd": "5"}` (contract §9); amounts
 * may also be JSON numbers and a tier's price may be named `price_usd`. Every field is optional.
 * A tier named here replaces the default of that name (both fields required); others are kept.
 */
export function parsePrices(json: string): Prices {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new PricesError('is not JSON');
  }
  if (!isObject(raw)) throw new PricesError('must be a JSON object');
  const prices: Prices = { ...DEFAULT_PRICES, tiers: { ...DEFAULT_PRICES.tiers } };
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'tiers') {
      if (!isObject(value)) throw new PricesError('tiers must be an object of tiers');
      for (const [name, tier] of Object.entries(value)) {
        if (!TIER_NAME.test(name))
          throw new PricesError(`tier name ${JSON.stringify(name)} must be lowercase letters, digits or _`);
        // The contract's example names the price `usd`; `price_usd` is taken too.
        const priceKeys = Object.keys(isObject(tier) ? tier : {}).filter((k) => k === 'usd' || k === 'price_usd');
        if (
          !isObject(tier) ||
          priceKeys.length !== 1 ||
          Object.keys(tier).some((k) => k !== 'usd' && k !== 'price_usd' && k !== 'cells')
        ) {
          throw new PricesError(`tiers.${name} must be {"usd": "20.00", "cells": integer}`);
        }
        if (!Number.isInteger(tier.cells) || (tier.cells as number) < 1 || (tier.cells as number) > 10_000) {
          throw new PricesError(`tiers.${name}.cells must be an integer from 1 to 10000`);
        }
        prices.tiers[name] = {
          priceMicros: usd(tier[priceKeys[0]], `tiers.${name}.${priceKeys[0]}`),
          includedCells: tier.cells as number,
        };
      }
    } else if (key in FIELDS) {
      prices[FIELDS[key as keyof typeof FIELDS]] = usd(value, key);
    } else {
      throw new PricesError(`has an unknown field ${JSON.stringify(key)}`);
    }
  }
  if (prices.minAmountMicros === 0) throw new PricesError('min_amount_usd must be more than 0');
  return prices;
}
