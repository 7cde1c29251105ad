// Credentials: random base62 secrets, stored only as SHA-256 hashes, compared in constant time.
import { hash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: rejecting larger bytes keeps every character equally likely.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** `<prefix><32 base62 chars>`, e.g. cg_live_..., cg_adm_..., cg_dev_... */
export function newSecret(prefix: string): string {
  return prefix + randomBase62(32);
}

export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

export function constantTimeEqualHex(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The part of a secret safe to show again: its type prefix and four characters. */
export function displayPrefix(secret: string): string {
  const typeEnd = secret.lastIndexOf('_') + 1;
  return secret.slice(0, typeEnd + 4);
}

export function sixDigitCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}
