// The phone's pace, one rule in SMS segments (contract §11): a phone is handed at most
// `send_rate_per_minute` segments in any 60 s and `daily_send_limit` in any 24 h, counted per phone
// (a phone with two SIMs counts both lines' segments together). The claim asks it what to hand
// out (withinPacing), a send's RateLimit-* headers what would still go out within the minute
// (paceOf), and the broadcast planner how much more to queue (queueRoom).
//
// The RateLimit-* headers (IETF draft names) of a send's answer: the pace of the phone it goes out
// from, or of a pod's cells together for a broadcast, so an agent can plan a burst. The
// per-credential request limit (src/http/rate-limit.ts) sets the same headers: the more
// restrictive of the two is advertised (fewer remaining; on a tie, the later reset).
import type { FastifyReply } from 'fastify';

export const MINUTE_MS = 60_000;
export const DAY_MS = 24 * 60 * 60 * 1000;

/** A phone's limits, in segments. */
export interface PhoneLimits {
  sendRatePerMinute: number;
  dailySendLimit: number;
}

/** Segments handed to the phone within the last minute and day, and when the oldest of each was. */
export interface Claimed {
  minute: number;
  day: number;
  minuteOldest?: string | null;
  dayOldest?: string | null;
}

/** What the phone may still be handed, in segments, now. */
export interface Room {
  minuteLeft: number;
  dayLeft: number;
  /** Nothing handed out this minute: a text longer than the minute's budget may go alone. */
  minuteEmpty: boolean;
}

/** The windows' starts at `now`: claims after them count. */
export function windowsAt(now: Date): { minute: string; day: string } {
  return {
    minute: new Date(now.getTime() - MINUTE_MS).toISOString(),
    day: new Date(now.getTime() - DAY_MS).toISOString(),
  };
}

export function roomOf(limits: PhoneLimits, claimed: Claimed): Room {
  return {
    minuteLeft: limits.sendRatePerMinute - claimed.minute,
    dayLeft: limits.dailySendLimit - claimed.day,
    minuteEmpty: claimed.minute === 0,
  };
}

/**
 * The ids of the oldest queued messages (`candidates`, oldest first) that fit the room, in order:
 * it stops at the first that does not fit, so a long text is never overtaken. A text longer than
 * the whole minute budget (a 24-segment text on a phone paced at 10) goes out alone in a minute
 * with nothing else handed out, or it would never go; the daily cap has no such exception.
 */
export function withinPacing(candidates: readonly { id: string; segments: number }[], room: Room): string[] {
  const ids: string[] = [];
  let minute = room.minuteLeft;
  let day = room.dayLeft;
  for (const { id, segments } of candidates) {
    const cost = Math.max(1, segments);
    if (cost > day) break;
    const oversizedAlone = ids.length === 0 && room.minuteEmpty && cost > minute;
    if (cost > minute && !oversizedAlone) break;
    ids.push(id);
    minute -= cost;
    day -= cost;
    if (oversizedAlone) break;
  }
  return ids;
}

/**
 * How many more segments the planner may queue on a phone's cell now: `minutes` of its rate, no
 * more than its day has room for, less what already waits in the queue.
 */
export function queueRoom(limits: PhoneLimits, claimed: Claimed, queuedSegments: number, minutes: number): number {
  const room = roomOf(limits, claimed);
  return Math.max(0, Math.min(limits.sendRatePerMinute * minutes, room.dayLeft) - queuedSegments);
}

export interface Pace {
  /** Segments a minute. */
  limit: number;
  /** More segments that would go out within the current minute. */
  remaining: number;
  /** Seconds until `remaining` grows (0: it is as high as it gets). */
  reset: number;
}

const secondsUntil = (at: number, now: number) => Math.max(0, Math.ceil((at - now) / 1000));

/**
 * The pace of a send's answer: the phone's room now (its minute, or its day when that is
 * smaller) less the segments queued ahead on the cell, `queued`, which the caller counts over at
 * most `limit` messages: enough to tell whether anything remains, and a deeper queue costs
 * nothing more. Reset: when remaining > 0, until the oldest claim of the window that binds leaves
 * it (0 with none); when nothing remains, until that happens, or in a minute when nothing was
 * handed out yet (the queue ahead takes the minute). With a deeper queue Reset is a lower bound.
 */
export function paceOf(limits: PhoneLimits, claimed: Claimed, queued: number, now: Date): Pace {
  const room = roomOf(limits, claimed);
  const byDay = room.dayLeft < room.minuteLeft;
  const remaining = Math.max(0, Math.min(room.minuteLeft, room.dayLeft) - queued);
  const oldest = byDay ? claimed.dayOldest : claimed.minuteOldest;
  const freed = oldest ? secondsUntil(Date.parse(oldest) + (byDay ? DAY_MS : MINUTE_MS), now.getTime()) : 0;
  const reset = remaining > 0 || freed > 0 ? freed : MINUTE_MS / 1000;
  return { limit: limits.sendRatePerMinute, remaining, reset };
}

export const PACE_DOC =
  " Answers carry RateLimit-Limit (the cell's phone's SMS segments per minute), RateLimit-Remaining (more segments that would go out within the minute, after the queue ahead) and RateLimit-Reset (seconds until that grows).";

export const POD_PACE_DOC =
  " Answers carry RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset of the pod's active cells together (their phones' SMS segments per minute, more segments that would go out within the minute, seconds until that grows).";

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
