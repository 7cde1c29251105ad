// Phone numbers are E.164 everywhere (contract §2): parsed strictly (a leading "+", no text
// around it, no extension) and validated against libphonenumber-js metadata.
import type * as Libphonenumber from 'libphonenumber-js';
import { invalidField } from './errors.ts';
import { onFirstUse } from './on-first-use.ts';

/** libphonenumber-js and its metadata of every country, loaded on the first number parsed. */
export const libphonenumber = onFirstUse<typeof Libphonenumber>('libphonenumber-js');

// Parsing costs ~20 µs and agents text the same numbers again and again: remember recent answers.
const MEMO_SIZE = 10_000;
const memo = new Map<string, string | null>();

/** The E.164 form of `input`, or null when it is not a valid international number. */
export function normalizePhone(input: string): string | null {
  let phone = memo.get(input);
  if (phone === undefined) {
    phone = parse(input);
    if (memo.size >= MEMO_SIZE) memo.clear();
    memo.set(input, phone);
  }
  return phone;
}

function parse(input: string): string | null {
  const text = input.trim();
  if (!text.startsWith('+')) return null;
  const parsed = libphonenumber().parsePhoneNumberFromString(text, { extract: false });
  if (!parsed || parsed.ext || !parsed.isValid()) return null;
  return parsed.number;
}

/** normalizePhone, or a 400 invalid_request naming `field` with code invalid_phone_number. */
export function requirePhone(field: string, input: string): string {
  const phone = normalizePhone(input);
  if (phone === null) {
    throw invalidField(
      field,
      'invalid_phone_number',
      `${field} must be a valid phone number in international E.164 form, e.g. +14155550123.`,
    );
  }
  return phone;
}
