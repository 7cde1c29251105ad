// Money is integer micro-USD everywhere (contract §2); these convert at the edges: decimal strings
// ("20.00") where the interface types an amount as a string, JSON numbers where it types a number.

export const MICROS_PER_USD = 1_000_000;

/** A decimal dollar amount with at most 2 decimals ("12.50", "5"), or null when it is not one. */
const DECIMAL_USD = /^(0|[1-9]\d{0,8})(\.\d{1,2})?$/;

export function parseUsd(text: string): number | null {
  if (!DECIMAL_USD.test(text)) return null;
  const [whole, fraction = ''] = text.split('.');
  return Number(whole) * MICROS_PER_USD + Number(fraction.padEnd(2, '0')) * 10_000;
}

/** "20.00": rounded up to the cent (an amount to pay is never rounded down). */
export function usdString(micros: number): string {
  const cents = Math.ceil(micros / 10_000);
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** A JSON number of dollars (exact to the micro-dollar). */
export function usdNumber(micros: number): number {
  return micros / MICROS_PER_USD;
}

/** The exact amount, with 2 to 6 decimals ("0.01", "0.005", "12.50"). */
export function usdExact(micros: number): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(micros);
  const fraction = String(abs % MICROS_PER_USD).padStart(6, '0').replace(/0{1,4}$/, '');
  return `${sign}${Math.floor(abs / MICROS_PER_USD)}.${fraction}`;
}
