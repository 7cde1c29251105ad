// Opaque, type-prefixed, time-sortable ids: `<prefix>_<lowercase ULID>` (contract §2).
import { monotonicFactory } from 'ulid';

export type IdPrefix =
  | 'org' | 'key' | 'cell' | 'dev' | 'pod' | 'msg' | 'conv' | 'drf' | 'lst' | 'whk' | 'evt'
  | 'job' | 'pay' | 'wal' | 'usg' | 'adm' | 'mail' | 'req' | 'dlv';

const nextUlid = monotonicFactory();

export function newId(prefix: IdPrefix, nowMs: number = Date.now()): string {
  return `${prefix}_${nextUlid(nowMs).toLowerCase()}`;
}

/** True when `value` has the shape of an id with this prefix (cheap check before a lookup). */
export function isId(prefix: IdPrefix, value: string): boolean {
  return value.length === prefix.length + 27 && value.startsWith(`${prefix}_`) && /^[0-9a-hjkmnp-tv-z]{26}$/.test(value.slice(prefix.length + 1));
}
