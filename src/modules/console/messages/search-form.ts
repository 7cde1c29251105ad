// The message search form (a GET form: a search changes nothing, so its address can be bookmarked
// and exported): reading and checking each field, and the query it makes for MessagesService.
import { normalizePhone } from '../../../lib/phone.ts';
import { MESSAGE_STATUSES, type MessageStatus } from '../../messages/lifecycle.ts';
import type { MessageSearchQuery } from '../../messages/service.ts';

const SEARCH_FIELDS = ['cell', 'participant', 'text', 'status', 'from', 'to'] as const;
type SearchField = (typeof SEARCH_FIELDS)[number];
/** What the form asks MessagesService for (the cells, the page and its size are the route's). */
type Search = Omit<MessageSearchQuery, 'cellIds' | 'cursor' | 'limit'>;
export const TEXT_MAX = 200;
const DAY_MS = 24 * 60 * 60 * 1000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** What was typed (to show it again) and what was wrong with it. */
export interface SearchForm {
  values: Record<SearchField, string>;
  errors: Partial<Record<SearchField, string>>;
}

/** A day (YYYY-MM-DD, as a date input sends it) as its first instant in UTC; null if no such day. */
function dayStart(value: string): Date | null {
  const match = DATE.exec(value);
  if (!match) return null;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  // Feb 31 would roll over into March: refused, as the API refuses such a send_at.
  return date.toISOString().slice(0, 10) === value ? date : null;
}

/**
 * Reads the form from a query. `cells` are the organization's cell ids; a cell that is not one of
 * them is not a form error but a 404 (`foreignCell`), as another organization's id is everywhere.
 */
export function readSearch(
  query: Record<string, string>,
  cellIds: ReadonlySet<string>,
): { form: SearchForm; search: Search; cell?: string; foreignCell: boolean } {
  const values = Object.fromEntries(
    SEARCH_FIELDS.map((name) => [name, (query[name] ?? '').trim()]),
  ) as SearchForm['values'];
  const errors: SearchForm['errors'] = {};
  const search: Search = {};
  if (values.participant) {
    const participant = normalizePhone(values.participant);
    if (participant) search.participant = participant;
    else errors.participant = 'Enter a phone number in international form: + and the country code, like +14155550123.';
  }
  if (values.text) {
    if ([...values.text].length > TEXT_MAX) errors.text = `The text is too long (at most ${TEXT_MAX} characters).`;
    else search.text = values.text;
  }
  if (values.status) {
    if ((MESSAGE_STATUSES as readonly string[]).includes(values.status)) search.status = values.status as MessageStatus;
    else errors.status = 'Choose one of the statuses.';
  }
  for (const name of ['from', 'to'] as const) {
    if (!values[name]) continue;
    const start = dayStart(values[name]);
    if (!start) errors[name] = 'Enter a date like 2026-11-21 (year, month, day).';
    // The range takes whole days: up to the end of the `to` day.
    else search[name] = name === 'to' ? new Date(start.getTime() + DAY_MS) : start;
  }
  if (search.from && search.to && search.from >= search.to) {
    errors.to = 'The end date is before the start date.';
    delete search.to;
  }
  const foreignCell = values.cell !== '' && !cellIds.has(values.cell);
  return { form: { values, errors }, search, cell: values.cell || undefined, foreignCell };
}

export const hasErrors = (form: SearchForm) => Object.keys(form.errors).length > 0;

/** The form's values as a query string (for the next page and the export), empty fields left out. */
export function searchQueryString(form: SearchForm, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const name of SEARCH_FIELDS) if (form.values[name]) params.set(name, form.values[name]);
  for (const [name, value] of Object.entries(extra)) params.set(name, value);
  const query = params.toString();
  return query ? `?${query}` : '';
}
