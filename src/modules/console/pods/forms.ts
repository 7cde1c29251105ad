// What the Pods pages' forms share: reading a posted form, an operation's refusal as the form's
// errors, the 404 page, and the session of a page that is both shown and posted.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../../lib/errors.ts';
import type { SignedInContext } from '../guard.ts';
import { text } from '../account/shared.ts';
import { CONSOLE_PATH, sendPage } from '../http.ts';
import type { ConsoleModule } from '../module.ts';
import { messagePage } from '../pages.ts';
import type { FormState } from './pages.ts';
import { sayFieldError } from '../field-errors.ts';

export type Params = { pod_id: string; draft_id?: string; list_id?: string; job_id?: string };

/** The posted form's text fields (to show them again). */
export const valuesOf = (body: unknown): Record<string, string> =>
  Object.fromEntries(
    Object.entries((body ?? {}) as Record<string, unknown>).flatMap(([k, v]) =>
      typeof v === 'string' && k !== 'csrf_token' ? [[k, v]] : [],
    ),
  );
export const cellIdsOf = (body: unknown) =>
  Object.entries(valuesOf(body)).flatMap(([k, v]) => (/^cell_\d+$/.test(k) ? [v] : []));
/** One number per line (commas too), blanks dropped. */
export const linesOf = (value: string) =>
  value
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter(Boolean);

export const NO_NUMBERS = 'Enter at least one number, one per line.';

/** How a form names what a field wants, for the API's "must NOT have fewer than 1 characters". */
const WANTED: Record<string, string> = {
  name: 'Enter a name.',
  to: 'Enter a number in international form, like +14155550123.',
  body: 'Enter a message.',
  participant: 'Enter a number in international form, like +14155550123.',
  mode: 'Choose a broadcast or a ring.',
};
/** The forms' names of the API's fields, for a message that starts with the field ("to.3 must ..."). */
const LABELS: Record<string, string> = {
  name: 'The name',
  to: 'The number',
  body: 'The message',
  participant: 'The number',
  numbers: 'The number',
  cell_ids: 'The cell',
  mode: 'The mode',
  start: 'The start',
  end: 'The end',
  time_zone: 'The time zone',
};

const sayField = (name: string, field: string, message: string) =>
  field === name && WANTED[name] && /fewer than 1 characters|equal to one of the allowed values/.test(message)
    ? WANTED[name]
    : sayFieldError(field, message, LABELS);

/**
 * An operation's refusal as the form's errors: field errors on their field (an item of a list by
 * its line), a refusal of the whole form (409, 402, ...) as its notice; null for not_found (the
 * caller's 404) and anything unexpected.
 */
export function formRefusal(
  error: unknown,
  values: Record<string, string>,
): { form: FormState; status: number } | null {
  if (!(error instanceof ApiError) || error.code === 'not_found' || error.status >= 500) return null;
  const form: FormState = { values, errors: {} };
  if (error.code === 'invalid_request' && error.errors?.length) {
    for (const e of error.errors) {
      const [name] = e.field.split(/[./]/);
      form.errors[name] ??= sayField(name, e.field, e.message);
    }
  } else if (error.code === 'cell_in_pod') form.errors.cell_ids = error.message;
  else form.notice = error.message;
  return { form, status: error.status };
}

/** The 404 page of a pod (or its draft, list, job) that is unknown or another organization's. */
export const podNotFound = (reply: FastifyReply, context: SignedInContext, what = 'Pod') =>
  sendPage(
    reply,
    404,
    messagePage(
      context,
      `${what} not found`,
      `This ${what.toLowerCase()} does not exist or belongs to another organization.`,
      {
        href: `${CONSOLE_PATH}/pods`,
        text: 'See your pods',
      },
    ),
  );

export const isNotFound = (error: unknown) => error instanceof ApiError && error.code === 'not_found';

/** The session of a page (GET) or of a form post (its CSRF token checked); null once the guard answered. */
export const sessionOfPage = (
  guard: ConsoleModule['guard'],
  request: FastifyRequest,
  reply: FastifyReply,
  posted: boolean,
) => (posted ? guard.posted(request, reply, text(request.body, 'csrf_token')) : guard.page(request, reply));
