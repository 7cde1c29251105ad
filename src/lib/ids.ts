// Opaque, type-prefixed, time-sortable ids: `<prefix>_<lowercase ULID>` (contract §2).
// The time inside an id comes from the app's injected clock, so a test's ids carry the test's
// time. Ids are monotonic per clock: two apps on different clocks in one process (tests) never
// push each other's ids forward in time.
import { randomFillSync } from 'node:crypto';
import { encodeTime, monotonicFactory, type ULIDFactory } from 'ulid';
import type { Clock } from './clock.ts';
import { randomBase62 } from './secrets.ts';

export type IdPrefix =
  | 'org'
  | 'key'
  | 'cell'
  | 'dev'
  | 'pod'
  | 'msg'
  | 'conv'
  | 'drf'
  | 'lst'
  | 'whk'
  | 'evt'
  | 'job'
  | 'pay'
  | 'wal'
  | 'usg'
  | 'adm'
  | 'mail'
  | 'req'
  | 'dlv'
  | 'dep'
  | 'aud'
  // OAuth: clients, authorization requests, grants, access and refresh tokens.
  | 'ocl'
  | 'oar'
  | 'grt'
  | 'oat'
  | 'ort'
  | 'enr';

// ulid's default source calls getRandomValues once per character; drawing from a pool of
// random bytes keeps id generation off the request hot path.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;
function randomFraction(): number {
  if (poolOffset >= pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++] / 256;
}

const factories = new WeakMap<Clock, ULIDFactory>();

/**
 * The smallest id of `prefix` minted in the millisecond `ms` (time part only): every id minted at
 * or after it sorts above it, so it bounds a listing by time (`since`).
 */
export const idFloor = (prefix: IdPrefix, ms: number): string =>
  `${prefix}_${encodeTime(Math.max(0, ms), 10).toLowerCase()}`;

/** A new id minted at `at` (default: the clock's now); monotonic among the ids of this clock. */
export function newId(prefix: IdPrefix, clock: Clock, at: Date = clock.now()): string {
  let next = factories.get(clock);
  if (!next) {
    next = monotonicFactory(randomFraction);
    factories.set(clock, next);
  }
  return `${prefix}_${next(at.getTime()).toLowerCase()}`;
}

/** True when `value` has the shape of an id with this prefix (cheap check before a lookup). */
export function isId(prefix: IdPrefix, value: string): boolean {
  return (
    value.length === prefix.length + 27 &&
    value.startsWith(`${prefix}_`) &&
    /^[0-9a-hjkmnp-tv-z]{26}$/.test(value.slice(prefix.length + 1))
  );
}

/**
 * A capability handle: `<prefix>_<22 base62 characters>`, 131 random bits and nothing else (no
 * time, no counter). For ids that are themselves the proof of access, such as the authorization
 * request a consent link names: a newId is time-ordered, so its neighbours can be guessed.
 */
export function newHandle(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(22)}`;
}
