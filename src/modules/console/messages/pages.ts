// The Messages section's HTML: the search form (participant, text, status, dates, cell), the
// matching messages newest first with a link to each one's thread, the next page, and the CSV
// export of the same search. Every value is escaped.
import { html, type Html } from '../../../lib/html.ts';
import type { CellView } from '../../cells/service.ts';
import { MESSAGE_STATUSES } from '../../messages/lifecycle.ts';
import type { MessageView } from '../../messages/views.ts';
import { capitalized } from '../account/shared.ts';
import { phone, time } from '../conversations/format.ts';
import { participantOf, threadPath } from '../conversations/pages.ts';
import type { SignedInContext } from '../guard.ts';
import { errorNotice, field, layout, selectField } from '../layout.ts';
import { dataTable } from '../data-table.ts';
import { hasErrors, searchQueryString, TEXT_MAX, type SearchForm } from './search-form.ts';

/** How much of a text the results show (the thread has all of it). */
const PREVIEW = 160;
const preview = (body: string) => {
  const chars = [...body];
  return chars.length > PREVIEW ? `${chars.slice(0, PREVIEW).join('')}…` : body;
};

interface SearchView {
  form: SearchForm;
  cells: readonly CellView[];
  /** Null when the form has errors (nothing was searched). */
  results: { messages: MessageView[]; nextCursor: string | null; cursor?: string } | null;
}

/** The matches as a table (with the next page's link), or that there are none. */
function resultsTable(
  context: SignedInContext,
  { form, cells }: SearchView,
  results: NonNullable<SearchView['results']>,
): Html {
  const cellNames = new Map(cells.map((cell) => [cell.id, cell.display_name]));
  const link = (message: MessageView) => {
    const participant = participantOf(message);
    return html`${message.direction === 'inbound' ? 'From' : 'To'} <a class="mono" href="${threadPath(context, message.cell_id, participant)}#message-${message.id}">${phone(participant)}</a>`;
  };
  const table = dataTable<MessageView>({
    caption: `Matching messages, newest first${results.cursor ? ' (a later page)' : ''}. Open a number to see the whole conversation.`,
    columns: [
      { label: 'Created', value: (message) => time(message.created_at) },
      { label: 'Cell', value: (message) => cellNames.get(message.cell_id) ?? message.cell_id },
      { label: 'With', value: link },
      {
        label: 'Text',
        className: 'message-text',
        value: (message) =>
          html`${preview(message.body)}${message.code && html` <span class="tag">code ${message.code}</span>`}`,
      },
      { label: 'Status', value: (message) => capitalized(message.status) },
    ],
    rows: results.messages,
    empty: 'No messages match this search.',
    rowHeader: false,
    more: results.nextCursor
      ? {
          href: `${context.path}/messages${searchQueryString(form, { cursor: results.nextCursor })}`,
          label: 'Older matches',
        }
      : null,
  });
  return html`<div class="search-results">${table}</div>`;
}

export function searchPage(context: SignedInContext, view: SearchView): Html {
  const { form, cells, results } = view;
  const { values, errors } = form;
  const failed = hasErrors(form);
  const path = `${context.path}/messages`;
  const exportLink =
    results &&
    results.messages.length > 0 &&
    html`<p class="actions"><a class="button secondary" href="${`${path}/export.csv${searchQueryString(form)}`}" download>Export all matches as CSV</a></p>`;
  return layout(
    { ...context, current: 'messages' },
    `${failed ? 'Error: ' : ''}Messages`,
    html`<div class="card wide">
<h1>Messages</h1>
<p class="lead">Search the texts of your cells. Every field is optional; dates are days in UTC, both included.</p>
${failed && errorNotice('The search was not run: correct the fields marked below.')}
<form method="get" action="${path}" class="search-form" novalidate role="search" aria-label="Messages">
<div class="field-grid">
${selectField({ id: 'cell', name: 'cell', label: 'Cell', value: values.cell, choices: [['', 'All cells'], ...cells.map((cell) => [cell.id, cell.display_name] as const)] })}
${field({ id: 'participant', name: 'participant', label: 'Phone number', type: 'tel', value: values.participant, hint: 'The other party, like +14155550123.', error: errors.participant, optional: true, attributes: html`autocomplete="off" spellcheck="false" maxlength="64"` })}
${field({ id: 'text', name: 'text', label: 'Text contains', type: 'search', value: values.text, hint: 'Without regard to case.', error: errors.text, optional: true, attributes: html`maxlength="${TEXT_MAX}" autocomplete="off"` })}
${selectField({ id: 'status', name: 'status', label: 'Status', value: MESSAGE_STATUSES.includes(values.status as never) ? values.status : '', choices: [['', 'Any status'], ...MESSAGE_STATUSES.map((status) => [status, capitalized(status)] as const)], error: errors.status })}
${field({ id: 'from', name: 'from', label: 'From (day)', type: 'date', value: values.from, hint: 'A day, in UTC.', error: errors.from, optional: true })}
${field({ id: 'to', name: 'to', label: 'To (day)', type: 'date', value: values.to, hint: 'A day, in UTC.', error: errors.to, optional: true })}
</div>
<div class="actions"><button type="submit" class="primary">Search</button> <a class="button secondary" href="${path}">Clear</a></div>
</form>
<section aria-labelledby="results-heading">
<h2 id="results-heading">Results</h2>
${failed && html`<p>Correct the search to see results.</p>`}
${exportLink}
${results && resultsTable(context, view, results)}
</section>
</div>`,
  );
}
