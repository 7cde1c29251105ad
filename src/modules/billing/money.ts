// Money is integer micro-USD everywhere (contract §2); these convert at the edges: decimal strings
// ("20.00") where the interface types an amount as a string, JSON numbers where it types a number.
// Inside billing an amount is a Micros: a number the compiler keeps apart from dollars (usdNumber)
// and from plain counts, so the two cannot be mixed by accident. Rows (tables.ts) keep what the
// database gives (number, or a bigint's string on PostgreSQL); micros() brings them in.

export type Micros = number & { readonly __brand: 'Micros' };

export const MICROS_PER_USD = 1_000_000;

/** An exact amount of micro-USD: a column's value, or an integer computed from amounts. */
export function micros(value: number | string): Micros {
  const amount = Number(value);
  if (!Number.isSafeInteger(amount)) throw new RangeError(`Not an exact micro-USD amount: ${String(value)}`);
  return amount as Micros;
}

/** Whole dollars, for prices and bounds written in code: usd(20) is 20,000,000 micro-USD. */
export const usd = (dollars: number): Micros => micros(dollars * MICROS_PER_USD);

export const ZERO: Micros = micros(0);

export const plus = (a: Micros, b: Micros): Micros => (a + b) as Micros;
export const minus = (a: Micros, b: Micros): Micros => (a - b) as Micros;
export const negated = (amount: Micros): Micros => -amount as Micros;
/** `count` units of a price (segments, cells). */
export const times = (unit: Micros, count: number): Micros => micros(unit * count);
export const larger = (a: Micros, b: Micros): Micros => (a > b ? a : b);

// Money bounds (contract §7). The largest balance, 10^15 micro-USD, is far below 2^53 (about
// 9 * 10^15): every amount and balance stays an exact integer as a JS number, and node:sqlite
// can read it back (it refuses integers past 2^53).
/** CELLGATE_MAX_PAYMENT_USD's default: 10,000.00. */
export const DEFAULT_MAX_PAYMENT_MICROS = usd(10_000);
/** One operator credit: at most 1,000,000.00. */
export const MAX_OPERATOR_CREDIT_MICROS = usd(1_000_000);
/** A prepaid balance never exceeds 1,000,000,000.00. */
export const MAX_BALANCE_MICROS = usd(1_000_000_000);

/**
 * A decimal dollar amount with at most 2 decimals ("12.50", "5"), or null when it is not one: no
 * sign, exponent or third decimal, and at most 9 whole digits (under 10^15 micro-USD, exact).
 */
const DECIMAL_USD = /^(0|[1-9]\d{0,8})(\.\d{1,2})?$/;

export function parseUsd(text: string): Micros | null {
  if (!DECIMAL_USD.test(text)) return null;
  const [whole, fraction = ''] = text.split('.');
  return micros(Number(whole) * MICROS_PER_USD + Number(fraction.padEnd(2, '0')) * 10_000);
}

// The formatters take any micro-USD count: the console computes some of its own (chart totals),
// and a Micros is a number.

/** "20.00": rounded up to the cent (an amount to pay is never rounded down). */
export function usdString(amount: number): string {
  const cents = Math.ceil(amount / 10_000);
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** A JSON number of dollars (exact to the micro-dollar). */
export function usdNumber(amount: number): number {
  return amount / MICROS_PER_USD;
}

/** The exact amount, with 2 to 6 decimals ("0.01", "0.005", "12.50"). */
export function usdExact(amount: number): string {
  const sign = amount < 0 ? '-' : '';
  const abs = Math.abs(amount);
  const fraction = String(abs % MICROS_PER_USD)
    .padStart(6, '0')
    .replace(/0{1,4}$/, '');
  return `${sign}${Math.floor(abs / MICROS_PER_USD)}.${fraction}`;
}

/**
 * An amount with its sign, as people read it: "$20.00", "-$0.01". A number is micro-USD, rounded
 * up to the cent as usdString does, or with `exact` to the micro-dollar as usdExact does ("$0.005");
 * a string is a decimal an interface already gave ("12.50").
 */
export function dollars(amount: number | string, exact = false): string {
  const text = typeof amount === 'string' ? amount : exact ? usdExact(amount) : usdString(amount);
  return text.startsWith('-') ? `-$${text.slice(1)}` : `$${text}`;
}

/** A JSON number of dollars (a view's balance) with its sign, exact: 12.5 is "$12.50". */
export const dollarsOfNumber = (usd: number): string => dollars(Math.round(usd * MICROS_PER_USD), true);
