// Billing periods: at each period end the renewal is taken from the prepaid balance, or the
// organization becomes past_due, then suspended after the grace (BillingService.closePeriods).
import type { BillingService } from '../modules/billing/service.ts';

export const BILLING_PERIODS_INTERVAL_MS = 60_000;

export function billingPeriodsWorker(deps: { billing: BillingService }) {
  return { tick: () => deps.billing.closePeriods() };
}
