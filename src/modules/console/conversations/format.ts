// How the Cells section writes numbers and times, shared by its pages and forms.
import { html } from '../../../lib/html.ts';
import { libphonenumber } from '../../../lib/phone.ts';

/** The longest body the forms accept (contract §2), counted in characters as the API counts them. */
export const MAX_BODY = 1600;

/** "+1 415 555 0199" for "+14155550199" (readable, still international). */
export function phone(number: string): string {
  return libphonenumber().parsePhoneNumberFromString(number)?.formatInternational() ?? number;
}

/** Times are UTC, as everywhere in Cellgate; the datetime attribute keeps the exact instant. */
export const time = (iso: string) => html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
