// Lists of phone numbers in a request (contract §5: list numbers, broadcast `to`): each one
// validated and normalised to E.164; a bad one is reported by its index, and nothing is written.
import { ApiError, type FieldError } from '../../lib/errors.ts';
import { normalizePhone } from '../../lib/phone.ts';

/** Bad numbers reported in one answer (a list of 10,000 bad ones would make a 1 MB error). */
const MAX_REPORTED = 100;

/** The distinct E.164 forms of `inputs`, in first-seen order; 400 naming `field.<i>` for each bad one. */
export function normalizeNumbers(field: string, inputs: readonly string[]): string[] {
  const numbers = new Set<string>();
  const errors: FieldError[] = [];
  let bad = 0;
  inputs.forEach((input, i) => {
    const phone = normalizePhone(input);
    if (phone) numbers.add(phone);
    else if (++bad <= MAX_REPORTED) {
      const message = `${field}.${i} must be a valid phone number in international E.164 form, e.g. +14155550123.`;
      errors.push({ field: `${field}.${i}`, code: 'invalid_phone_number', message });
    }
  });
  if (bad > 0) {
    const more = bad > errors.length ? ` (the first ${errors.length} are listed)` : '';
    throw new ApiError(
      'invalid_request',
      bad === 1 ? errors[0].message : `${bad} numbers are not valid phone numbers${more}.`,
      { errors },
    );
  }
  return [...numbers];
}
