// Opaque, type-prefixed, time-sortable ids: `<prefix>_<lowercase ULID>` (contract §2).
import { randomFillSync } from 'node:crypto';
import { encodeTime, monotonicFactory } from 'ulid';

export type IdPrefix =
  | 'org' | 'key' | 'cell' | 'dev' | 'pod' | 'msg' | 'conv' | 'drf' | 'lst' | 'whk' | 'evt'
  | 'job' | 'pay' | 'wal' | 'usg' | 'adm' | 'mail' | 'req' | 'dlv';

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

const nextUlid = monotonicFactory(randomFraction);

export function newId(prefix: IdPrefix, nowMs: number = Date.now()): string {
  return `${prefix}_${nextUlid(nowMs).toLowerCase()}`;
}

/** True when `value` has the shape of an id with this prefix (cheap check before a lookup). */
export function isId(prefix: IdPrefix, value: string): boolean {
  return value.length === prefix.length + 27 && value.startsWith(`${prefix}_`) && /^[0-9a-hjkmnp-tv-z]{26}$/.test(value.slice(prefix.length + 1));
}

/** The smallest id of this prefix created at `ms`: a bound for "created since" range reads. */
export function idFloor(prefix: IdPrefix, ms: number): string {
  return `${prefix}_${encodeTime(ms, 10).toLowerCase()}${'0'.repeat(16)}`;
}
