// The rate limits the configuration asks for: the buckets (src/http/rate-limit.ts applies them;
// the agent status reports them).
import type { Config } from '../config.ts';

export interface Bucket {
  /** Tokens added per second. */
  rate: number;
  /** Bucket size. */
  burst: number;
}

/** The buckets the configuration asks for; null where limiting is off. */
export interface RateLimitPolicy {
  perCredential: Bucket | null;
  signUpPerIp: Bucket | null;
  /** The consoles' sign-ins and their codes, per address: apart from sign-ups, on when they are. */
  signInPerIp: Bucket | null;
}

/** Sign-in attempts (a code asked for or entered, an admin token tried) per address and hour. */
export const SIGN_INS_PER_HOUR = 30;

/** The policy from the configuration, computed once: the limiter and agent status both read it. */
export function rateLimitPolicy(
  config: Pick<Config, 'rateLimit' | 'rateLimitBurst' | 'signUpsPerHourPerIp'>,
): RateLimitPolicy {
  return {
    perCredential: config.rateLimit > 0 ? { rate: config.rateLimit, burst: Math.max(1, config.rateLimitBurst) } : null,
    signUpPerIp:
      config.signUpsPerHourPerIp > 0
        ? { rate: config.signUpsPerHourPerIp / 3600, burst: config.signUpsPerHourPerIp }
        : null,
    signInPerIp: config.signUpsPerHourPerIp > 0 ? { rate: SIGN_INS_PER_HOUR / 3600, burst: SIGN_INS_PER_HOUR } : null,
  };
}
