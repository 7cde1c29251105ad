// The RateLimit-* headers (IETF draft names) of a send's answer: the pace of the cell it goes out
// from (MessagesService.pace), or of a pod's cells together for a broadcast, so an agent can plan
// a burst. The per-credential request limit (src/http/rate-limit.ts) sets the same headers: the
// more restrictive of the two is advertised (fewer remaining; on a tie, the later reset).
import type { FastifyReply } from 'fastify';

export interface Pace {
  /** Messages a minute. */
  limit: number;
  /** More that would go out within the current minute. */
  remaining: number;
  /** Seconds until `remaining` grows (0: it is as high as it gets). */
  reset: number;
}

export const PACE_DOC =
  " Answers carry RateLimit-Limit (the cell's phone's messages per minute), RateLimit-Remaining (more that would go out within the minute) and RateLimit-Reset (seconds until that grows).";

export const POD_PACE_DOC =
  " Answers carry RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset of the pod's active cells together (their phones' messages per minute, more that would go out within the minute, seconds until that grows).";

/**
 * The pace of several cells sending together (a pod's): their limits and remainders add up, and
 * it grows when the first of them grows. Null when none has a phone.
 */
export function combinedPace(paces: readonly (Pace | null)[]): Pace | null {
  const known = paces.filter((pace): pace is Pace => pace !== null);
  if (known.length === 0) return null;
  const growing = known.map((pace) => pace.reset).filter((reset) => reset > 0);
  return {
    limit: known.reduce((sum, pace) => sum + pace.limit, 0),
    remaining: known.reduce((sum, pace) => sum + pace.remaining, 0),
    reset: growing.length > 0 ? Math.min(...growing) : 0,
  };
}

/** Sets the RateLimit-* headers to `pace`, unless the request limit's are more restrictive. */
export function setPaceHeaders(reply: FastifyReply, pace: Pace | null): void {
  if (!pace) return;
  const remaining = reply.getHeader('RateLimit-Remaining');
  const reset = Number(reply.getHeader('RateLimit-Reset') ?? 0);
  if (remaining !== undefined) {
    const stricter =
      Number(remaining) < pace.remaining || (Number(remaining) === pace.remaining && reset >= pace.reset);
    if (stricter) return;
  }
  reply.header('RateLimit-Limit', String(pace.limit));
  reply.header('RateLimit-Remaining', String(pace.remaining));
  reply.header('RateLimit-Reset', String(pace.reset));
}
