// Billing periods: at each period end the renewal is taken from the prepaid balance, or the
// organization becomes past_due, then suspended after the grace (BillingPeriods.closePeriods).
import type { BillingPeriods } from '../modules/billing/periods.ts';

export const BILLING_PERIODS_INTERVAL_MS = 60_000;

export function billingPeriodsWorker(deps: { periods: BillingPeriods }) {
  return { tick: () => deps.periods.closePeriods() };
}
