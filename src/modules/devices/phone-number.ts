// Phone numbers in E.164 (contract §2), validated with libphonenumber-js's metadata.
import { parsePhoneNumberFromString } from 'libphonenumber-js';

// libphonenumber finds a number inside any text ("call +1 415..."), so the input is first held to
// what a dialled international number looks like: a leading +, digits and the usual separators.
const DIALLED = /^\+[0-9][0-9 ().-]{5,30}$/;

/** The E.164 form of an international number, or null when it is not a valid number. */
export function toE164(input: string): string | null {
  if (!DIALLED.test(input.trim())) return null;
  const parsed = parsePhoneNumberFromString(input.trim());
  return parsed && parsed.isValid() ? parsed.number : null;
}
