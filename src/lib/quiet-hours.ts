// Quiet hours (contract §12): a daily window in an IANA time zone, e.g. 21:00-08:00
// America/New_York, during which sends wait for its end. Pure: wall-clock arithmetic through
// Intl, so daylight-saving changes move the window with the zone's clocks.
import { ApiError } from './errors.ts';
import { LruMap } from './lru.ts';

export interface QuietHours {
  start: string;
  end: string;
  time_zone: string;
}

const HH_MM = /^([01]\d|2[0-3]):([0-5]\d)$/;
const IANA_NAME = /^(?:[A-Za-z][A-Za-z0-9_+-]*)(?:\/[A-Za-z0-9_+-]+)*$/;

const minutesOf = (hhmm: string) => {
  const match = HH_MM.exec(hhmm) as RegExpExecArray;
  return Number(match[1]) * 60 + Number(match[2]);
};

// Intl takes a zone name in any letter case and links (US/Eastern) too; what it resolves a name to
// is one spelling per zone (America/New_York). Both caches are keyed so that they hold at most one
// entry per name Intl knows (a finite set of about 600), and are bounded besides.
const MAX_ZONE_NAMES = 1024;
const canonicalNames = new LruMap<string, string>(MAX_ZONE_NAMES);

/**
 * The canonical IANA spelling of a time zone name Intl knows, whatever its letter case
 * (`america/new_york` → `America/New_York`; a link to its zone, `US/Eastern` → `America/New_York`),
 * or null for anything else (unknown names, bare offsets, over 64 characters).
 */
export function canonicalTimeZone(zone: string): string | null {
  if (zone.length > 64 || !IANA_NAME.test(zone)) return null;
  const key = zone.toLowerCase();
  const known = canonicalNames.get(key);
  if (known !== undefined) return known;
  let canonical: string;
  try {
    canonical = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  canonicalNames.set(key, canonical);
  return canonical;
}

/** Whether `zone` is a time zone name Intl knows (IANA names and their links; no bare offsets). */
export function isTimeZone(zone: string): boolean {
  return canonicalTimeZone(zone) !== null;
}

/** The quiet hours of a request, or a 400 naming each bad part (`field`.start, .end, .time_zone). */
export function requireQuietHours(field: string, value: QuietHours): QuietHours {
  const errors: { field: string; code: string; message: string }[] = [];
  const refuse = (part: string, code: string, message: string) =>
    errors.push({ field: `${field}.${part}`, code, message });
  for (const part of ['start', 'end'] as const)
    if (!HH_MM.test(value[part])) refuse(part, 'invalid_format', `${part} is a 24-hour time HH:MM, 00:00-23:59.`);
  if (errors.length === 0 && value.start === value.end)
    refuse('end', 'invalid_value', 'end must differ from start (an empty or all-day window is not quiet hours).');
  const zone = canonicalTimeZone(value.time_zone);
  if (zone === null)
    refuse('time_zone', 'invalid_time_zone', 'time_zone is an IANA time zone name, e.g. America/New_York.');
  if (errors.length > 0) throw new ApiError('invalid_request', 'The quiet hours are not valid.', { errors });
  return { start: value.start, end: value.end, time_zone: zone as string };
}

/** One formatter per canonical zone (a stored name spelt otherwise shares its zone's). */
const formatters = new LruMap<string, Intl.DateTimeFormat>(MAX_ZONE_NAMES);
function formatter(name: string): Intl.DateTimeFormat {
  const zone = canonicalTimeZone(name) ?? name;
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, format);
  }
  return format;
}

type Wall = Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', number>;

function wallAt(ms: number, zone: string): Wall {
  const parts = formatter(zone).formatToParts(new Date(ms));
  const { year, month, day, hour, minute, second } = Object.fromEntries(
    parts.map((part) => [part.type, Number(part.value)]),
  ) as Wall;
  return { year, month, day, hour, minute, second };
}

/** The zone's offset from UTC at the instant `ms`, in milliseconds (whole seconds). */
function offsetAt(ms: number, zone: string): number {
  const wall = wallAt(ms, zone);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/**
 * The instant the zone's clocks show this wall time. A time the clocks skip (spring forward)
 * maps to the instant just after the gap at the same distance; a time shown twice (fall back), to
 * its first showing.
 */
export function instantOf(wall: Omit<Wall, 'second'>, zone: string): number {
  const local = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  // The zone's offsets half a day either side: a change of offset lies between them, if any.
  const before = local - offsetAt(local - 43_200_000, zone);
  const after = local - offsetAt(local + 43_200_000, zone);
  const shows = (t: number) => {
    const shown = wallAt(t, zone);
    return shown.day === wall.day && shown.hour === wall.hour && shown.minute === wall.minute;
  };
  const valid = [before, after].filter(shows);
  // Shown twice: the first; never shown (skipped): the earlier offset, which lands past the gap.
  return valid.length > 0 ? Math.min(...valid) : before;
}

/** When the quiet hours that hold `at` end, or null when `at` is outside them. */
export function quietEnd(quiet: QuietHours, at: Date): Date | null {
  const ms = at.getTime();
  const wall = wallAt(ms, quiet.time_zone);
  const now = wall.hour * 60 + wall.minute;
  const start = minutesOf(quiet.start);
  const end = minutesOf(quiet.end);
  const inside = start < end ? now >= start && now < end : now >= start || now < end;
  if (!inside) return null;
  // The window ends today, or (started before midnight) on the next day of the zone's calendar.
  const nextDay = start > end && now >= start;
  const date = new Date(Date.UTC(wall.year, wall.month - 1, wall.day + (nextDay ? 1 : 0)));
  const endAt = instantOf(
    {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth() + 1,
      day: date.getUTCDate(),
      hour: Math.floor(end / 60),
      minute: end % 60,
    },
    quiet.time_zone,
  );
  return new Date(Math.max(endAt, ms));
}

/** How many zone names and formatters are cached (both bounded): for tests. */
export function zoneCacheSize(): { names: number; formatters: number } {
  return { names: canonicalNames.size, formatters: formatters.size };
}

/** Quiet hours as stored (JSON text) → the value, or null. */
export function parseQuietHours(stored: string | null | undefined): QuietHours | null {
  return stored ? (JSON.parse(stored) as QuietHours) : null;
}
