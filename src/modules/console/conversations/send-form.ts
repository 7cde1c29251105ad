// The send form: its HTML, the checks of what was typed (before anything is sent), and the
// service's refusals turned into words next to the field they concern. The send itself goes
// through the send operation, as the API's does, so billing, opt-outs and cell state apply.
import { html, type Html } from '../../../lib/html.ts';
import { ApiError, type ErrorCode } from '../../../lib/errors.ts';
import { randomBase62 } from '../../../lib/secrets.ts';
import { normalizePhone } from '../../../lib/phone.ts';
import type { SignedInContext } from '../guard.ts';
import { field, hidden, postForm, textArea } from '../layout.ts';
import { MAX_BODY, phone } from './format.ts';

/** What the form shows: the values typed, and what was wrong with them. */
export interface SendForm {
  to?: string;
  body?: string;
  errors?: Partial<Record<'to' | 'body', string>>;
  /** An error that concerns no field the form shows (billing, the cell's state). */
  notice?: string;
  /** The notice is billing's: it links to the Billing section. */
  billing?: boolean;
  /** The HTTP status of a page showing these errors. */
  status?: number;
}

/** The key a rendered form sends with (a new one each render): a double submit of it sends once. */
export const sendIdOf = ({ send_id: id = '' }: Record<string, string>) =>
  /^[A-Za-z0-9]{22}$/.test(id) ? id : undefined;

export const hasError = (form: SendForm) =>
  Boolean(form.notice || (form.errors && Object.keys(form.errors).length > 0));

/**
 * Reads and checks a posted form; `fixedTo` is the thread's participant (the reply form has no
 * number field). Browsers send a textarea's line breaks as CRLF: an SMS has LF, and the limit
 * counts characters (code points) as the API's schema does.
 */
export function readSendForm(fields: Record<string, string>, fixedTo?: string) {
  const to = fixedTo ?? (fields.to ?? '').trim();
  const body = (fields.body ?? '').replace(/\r\n?/g, '\n');
  const errors: SendForm['errors'] = {};
  if (to === '') errors.to = 'Enter the number to text, like +14155550123.';
  else if (!normalizePhone(to))
    errors.to = 'Enter a valid phone number in international form: + and the country code, like +14155550123.';
  const length = [...body].length;
  if (body.trim() === '') errors.body = 'Enter a message.';
  else if (length > MAX_BODY) errors.body = `The message is ${length} characters long; the limit is ${MAX_BODY}.`;
  return { to, body, errors, status: 400 };
}

/** The notices of the service's refusals that concern no field the form shows. */
const NOTICES: Partial<Record<ErrorCode, (message: string) => string>> = {
  payment_required: (message) => `Billing refused this send: ${message}`,
  cell_not_active: (message) => `This cell cannot send now: ${message}`,
  idempotency_key_reused: () =>
    'This form was already sent with other text (the thread shows what went out). Send again from this new form if you meant to.',
  idempotency_request_in_progress: () => 'This form is still being sent. Check the thread in a moment.',
};

/**
 * The form again after the service refused the send, or null for an error the caller answers
 * itself (an unknown cell is a 404 page; anything unexpected is the app's 500).
 */
export function refusedForm(error: unknown, typed: { to: string; body: string }, toShown: boolean): SendForm | null {
  if (!(error instanceof ApiError)) return null;
  // A form sent twice conflicts with its first send (409), whatever the API answers for the key.
  const form = { to: typed.to, body: typed.body, status: error.code.startsWith('idempotency_') ? 409 : error.status };
  if (error.code === 'recipient_opted_out' || error.code === 'invalid_request')
    return toShown ? { ...form, errors: { to: error.message } } : { ...form, notice: error.message };
  const notice = NOTICES[error.code]?.(error.message);
  return notice ? { ...form, notice, billing: error.code === 'payment_required' } : null;
}

/**
 * The way to Billing after a refused send: it carries this page with what was typed, so the card
 * page leads back to it (the page's GET fills the form in from `to` and `body`).
 */
function billingLink(context: SignedInContext, options: { action: string; form: SendForm; to?: string }): Html {
  const typed = new URLSearchParams();
  if (options.to === undefined && options.form.to) typed.set('to', options.form.to);
  if (options.form.body) typed.set('body', options.form.body);
  const here = `${options.action.replace(/\/messages$/, '')}?${typed.toString()}`;
  const billing = `${context.path}/billing?${new URLSearchParams({ return: here }).toString()}`;
  return html`<p><a href="${billing}">Top up in Billing</a>, then send again: paying by card leads back here with your text.</p>`;
}

/** `to` given: a reply in a thread (the number is fixed); otherwise the number is a field. */
export function sendForm(context: SignedInContext, options: { action: string; form: SendForm; to?: string }): Html {
  const { form } = options;
  const errors = form.errors ?? {};
  const notice =
    form.notice &&
    html`<div class="notice error" role="alert"><p>${form.notice}</p>${form.billing && billingLink(context, options)}</div>`;
  // A reply's number is in the form's address (the thread's), so it has no field.
  const to =
    options.to === undefined &&
    field({
      id: 'to',
      name: 'to',
      label: 'To',
      type: 'tel',
      value: form.to,
      hint: 'In international form, like +14155550123.',
      error: errors.to,
      attributes: html`autocomplete="off" spellcheck="false" maxlength="64"`,
    });
  const label = options.to === undefined ? 'Message' : `Message to ${phone(options.to)}`;
  return html`${notice}${postForm(
    context,
    { action: options.action, button: 'Send', className: 'send-form' },
    html`${hidden('send_id', randomBase62(22))}
${to}
${textArea({ id: 'body', name: 'body', label, value: form.body, hint: `Up to ${MAX_BODY} characters. Long texts go out, and are billed, as several SMS parts.`, error: errors.body, rows: 4, attributes: html`maxlength="${MAX_BODY}" required` })}`,
  )}`;
}
