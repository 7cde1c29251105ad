// When a send goes out (contract §12): now, at the `send_at` it asks for (at most 30 days ahead),
// or at the end of its cell's (else its pod's) quiet hours when it would go out inside them,
// unless it says `send_now`. Pure: the clock's now comes in.
import { invalidField } from '../../lib/errors.ts';
import { quietEnd, type QuietHours } from '../../lib/quiet-hours.ts';

/** The furthest ahead a send may be scheduled. */
export const MAX_SCHEDULE_MS = 30 * 24 * 60 * 60 * 1000;

/** What a send request says about its timing. */
export interface ScheduleInput {
  send_at?: string;
  send_now?: boolean;
}

const ISO_WITH_OFFSET =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)$/i;

/** The instant of a request's send_at; 400 when it is not ISO 8601 with an offset, past, or too far. */
export function requireSendAt(value: string, now: Date): Date {
  const match = ISO_WITH_OFFSET.exec(value);
  const ms = match ? Date.parse(value) : Number.NaN;
  // Date.parse rolls 2026-02-31 over to March: the date must be the one written.
  const sameDay =
    match &&
    !Number.isNaN(ms) &&
    Number(match[2]) >= 1 &&
    Number(match[2]) <= 12 &&
    Number(match[3]) >= 1 &&
    Number(match[3]) <= new Date(Date.UTC(Number(match[1]), Number(match[2]), 0)).getUTCDate() &&
    Number(match[4]) <= 23 &&
    Number(match[5]) <= 59 &&
    Number(match[6] ?? 0) <= 59;
  if (!sameDay)
    throw invalidField(
      'send_at',
      'invalid_format',
      'send_at is an ISO 8601 time with its offset, e.g. 2026-11-21T09:00:00-05:00.',
    );
  if (ms <= now.getTime()) throw invalidField('send_at', 'in_the_past', 'send_at must be in the future.');
  if (ms > now.getTime() + MAX_SCHEDULE_MS)
    throw invalidField('send_at', 'too_far_ahead', 'send_at may be at most 30 days ahead.');
  return new Date(ms);
}

export interface Timing {
  status: 'scheduled' | 'queued';
  send_at: string | null;
  schedule_reason: 'send_at' | 'quiet_hours' | null;
}

/** When a send whose request asked for `sendAt` (or now) goes out, given the quiet hours that apply. */
export function timingOf(now: Date, sendAt: Date | null, quiet: QuietHours | null, sendNow: boolean): Timing {
  const at = sendAt ?? now;
  const quietUntil = quiet && !sendNow ? quietEnd(quiet, at) : null;
  if (quietUntil) return { status: 'scheduled', send_at: quietUntil.toISOString(), schedule_reason: 'quiet_hours' };
  if (sendAt) return { status: 'scheduled', send_at: sendAt.toISOString(), schedule_reason: 'send_at' };
  return { status: 'queued', send_at: null, schedule_reason: null };
}
