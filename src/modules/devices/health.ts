// A phone's health (contract §11, issue 25 §3): decided by a pure function over its recent send
// outcomes, newest first. Carrier-type failures in a row, a high failure rate over the last sends
// and sends stuck in `sending` (the lease ran out with no report) make it `degraded` (a warning;
// it still claims) or `quarantined` (it claims nothing until the operator releases it). A
// quarantine is never lifted by outcomes: only the operator's release ends it. Degraded recovers
// by itself once the recent outcomes are good again.
import type { DeviceHealth } from './tables.ts';

/** One outcome of a send the phone claimed. */
export interface Outcome {
  outcome: 'sent' | 'failed' | 'stuck';
  error_code: string | null;
}

export interface HealthDecision {
  health: DeviceHealth;
  reason: string | null;
}

/** How many of the newest outcomes the decision looks at. */
export const HEALTH_WINDOW = 20;

export const THRESHOLDS = {
  /** Carrier-type failures in a row. */
  carrierRun: { degraded: 2, quarantined: 5 },
  /** Sends stuck in `sending` within the window. */
  stuck: { degraded: 1, quarantined: 3 },
  /** Failure rate over the window's finished sends, once there are at least `min` of them. */
  failureRate: { degraded: 0.3, quarantined: 0.8, minDegraded: 5, minQuarantined: 10 },
} as const;

/**
 * Error codes that mean the network refused the text (what a SIM the carrier blocked or throttles
 * produces), as the agent reports Android's SmsManager results; any other code (an invalid
 * number, a phone with no signal or its radio off) says nothing about the SIM.
 */
export const CARRIER_ERRORS: ReadonlySet<string> = new Set([
  'generic_failure',
  'network_reject',
  'network_error',
  'carrier_blocked',
  'sms_blocked',
  'limit_exceeded',
  'short_code_not_allowed',
  'short_code_never_allowed',
]);

const isCarrierFailure = (o: Outcome) =>
  o.outcome === 'failed' && o.error_code !== null && CARRIER_ERRORS.has(o.error_code);

/** The health the outcomes (newest first) call for, given the current one. */
export function decideHealth(current: DeviceHealth, outcomes: readonly Outcome[]): HealthDecision {
  if (current === 'quarantined') return { health: 'quarantined', reason: null };
  const window = outcomes.slice(0, HEALTH_WINDOW);

  // Carrier-type failures in a row, newest first; a stuck send neither breaks nor extends the run.
  let run = 0;
  let lastCode: string | null = null;
  for (const outcome of window) {
    if (outcome.outcome === 'stuck') continue;
    if (!isCarrierFailure(outcome)) break;
    run += 1;
    lastCode ??= outcome.error_code;
  }
  const stuck = window.filter((o) => o.outcome === 'stuck').length;
  const finished = window.filter((o) => o.outcome !== 'stuck');
  const failed = finished.filter((o) => o.outcome === 'failed').length;
  const rate = finished.length === 0 ? 0 : failed / finished.length;
  const percent = `${Math.round(rate * 100)}% of the last ${finished.length} sends failed`;
  const { carrierRun, failureRate } = THRESHOLDS;

  const quarantined = (reason: string): HealthDecision => ({ health: 'quarantined', reason });
  const degraded = (reason: string): HealthDecision => ({ health: 'degraded', reason });
  if (run >= carrierRun.quarantined)
    return quarantined(`${run} carrier-type failures in a row (${lastCode}): the SIM looks blocked`);
  if (stuck >= THRESHOLDS.stuck.quarantined)
    return quarantined(`${stuck} of the last sends stuck in sending (no report before the lease ran out)`);
  if (finished.length >= failureRate.minQuarantined && rate >= failureRate.quarantined) return quarantined(percent);
  if (run >= carrierRun.degraded) return degraded(`${run} carrier-type failures in a row (${lastCode})`);
  if (stuck >= THRESHOLDS.stuck.degraded) return degraded(`${stuck} of the last sends stuck in sending`);
  if (finished.length >= failureRate.minDegraded && rate >= failureRate.degraded) return degraded(percent);
  return { health: 'healthy', reason: null };
}
