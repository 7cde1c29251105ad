// When a failed delivery is tried again (contract §6): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h
// after the first, second, ... failure, each with ±10% jitter; a Retry-After from the receiver
// pushes the next attempt later, never earlier, and at most RETRY_AFTER_CAP_MS away.
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export const RETRY_DELAYS_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
export const JITTER = 0.1;
export const RETRY_AFTER_CAP_MS = 24 * HOUR;
/** An endpoint failing for this long without one success is disabled. */
export const FAILURE_WINDOW_MS = 5 * 24 * HOUR;

/** Milliseconds until the next attempt after `attempts` attempts, or null when the schedule is exhausted. */
export function retryDelay(attempts: number, retryAfterMs: number | null, random: () => number = Math.random) {
  const base = RETRY_DELAYS_MS[attempts - 1];
  if (base === undefined) return null;
  const jittered = Math.round(base * (1 + JITTER * (2 * random() - 1)));
  return retryAfterMs === null ? jittered : Math.max(jittered, Math.min(retryAfterMs, RETRY_AFTER_CAP_MS));
}

/** Retry-After as delay-seconds or an HTTP date, in milliseconds from `now`; null when absent or malformed. */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * SECOND;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date) || !/[a-z]/i.test(trimmed)) return null;
  return Math.max(0, date - now.getTime());
}
