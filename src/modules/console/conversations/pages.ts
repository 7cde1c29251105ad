// The Cells section's HTML: the organization's cells with their phone's presence, a cell's
// conversations, and a conversation's thread with a send form. Every value is escaped. The
// pieces the live view replaces (a message, a conversation row, the cell's state) are rendered by
// the same functions for the page and for the live stream, so both always look the same. Status is
// told in words (with a glyph), never by colour alone.
import { html, join, type Html } from '../../../lib/html.ts';
import type { CellView } from '../../cells/service.ts';
import type { MessageView } from '../../messages/views.ts';
import type { SignedInContext } from '../guard.ts';
import { crumbs, facts, layout, section } from '../layout.ts';
import { dataTable, rowOf, type RowColumn } from '../data-table.ts';
import { phone, time } from './format.ts';
import { hasError, type SendForm, sendForm } from './send-form.ts';
import { quietHoursSection } from '../quiet-hours.ts';
import { capitalized, postButton } from '../account/shared.ts';

export const SCRIPTS = ['cells.js'];
export const CELL_QUIET_HOURS =
  "Texts this cell would send inside them wait until they end (unless sent with send_now). The cell's own apply instead of its pod's.";

export const cellsPath = (context: SignedInContext) => `${context.path}/cells`;
export const cellPath = (context: SignedInContext, cellId: string) =>
  `${cellsPath(context)}/${encodeURIComponent(cellId)}`;
/** The thread of the cell with `participant` (none: the cell's own page). */
export const threadPath = (context: SignedInContext, cellId: string, participant?: string) =>
  `${cellPath(context, cellId)}${participant === undefined ? '' : `/conversations/${encodeURIComponent(participant)}`}`;

const GLYPHS: Record<MessageView['status'], string> = {
  scheduled: '⏲',
  queued: '◷',
  sending: '↻',
  sent: '✓',
  delivered: '✓✓',
  failed: '✕',
  canceled: '⊘',
  received: '↓',
};

/** What a cell's status means, for those that need saying. */
const CELL_NOTES: Partial<Record<CellView['status'], string>> = {
  provisioning: 'Waiting for a phone: the cell gets its number when the operator adds one.',
  suspended: 'Suspended for an unpaid period: sends are refused until the organization pays.',
  released: 'This cell was released: it no longer sends or receives.',
};

function messageStatus({ status, send_at, schedule_reason }: MessageView): Html {
  const until =
    status === 'scheduled' &&
    send_at &&
    html` for ${time(send_at)}${schedule_reason === 'quiet_hours' ? ' (quiet hours)' : ''}`;
  return html`<span class="msg-status msg-${status}"><span aria-hidden="true">${GLYPHS[status]}</span> ${capitalized(status)}${until}</span>`;
}

function presence(cell: CellView): Html {
  if (!cell.phone_number) return html`<span class="presence none">No phone yet</span>`;
  const seen = cell.last_seen_at && html` <span class="small">last seen ${time(cell.last_seen_at)}</span>`;
  const [state, glyph] = cell.online ? ['online', '●'] : ['offline', '○'];
  return html`<span class="presence ${state}"><span aria-hidden="true">${glyph}</span> ${capitalized(state)}</span>${seen}`;
}

const cellStatus = (cell: CellView) =>
  html`<span class="cell-status cell-${cell.status}">${capitalized(cell.status)}</span>`;

/** In place of the send form of a cell still waiting for its phone (unless a refused send's notice is shown): it has no number to send from. */
const NO_SEND_YET = html`<p class="small" id="no-send-yet">This cell cannot send yet: it has no number until a phone is assigned to it. Reload this page once its status is Active to send.</p>`;

const cellNumber = (cell: CellView) =>
  cell.phone_number ? html`<span class="mono">${phone(cell.phone_number)}</span>` : 'None yet';

/** The cell's number, phone presence and status (replaced live on cell events). */
export function cellState(context: SignedInContext, cell: CellView): Html {
  const note = CELL_NOTES[cell.status];
  const billing = cell.status === 'suspended' && html` <a href="${context.path}/billing">Go to Billing</a>.`;
  return html`<div id="cell-state" class="cell-state">
${facts([
  ["This cell's number", cellNumber(cell)],
  ['Phone', presence(cell)],
  ['Status', cellStatus(cell)],
])}
${note ? html`<p class="notice info">${note}${billing}</p>` : ''}
</div>`;
}

/** One message of a thread; its id lets the live view replace it when its status changes. */
export function messageItem(message: MessageView): Html {
  const inbound = message.direction === 'inbound';
  const media =
    message.media_urls.length > 0 &&
    html`<ul class="message-media">${message.media_urls.map((url, i) => html`<li><a href="${url}" rel="noopener noreferrer">Attachment ${i + 1}</a></li>`)}</ul>`;
  const error =
    message.status === 'failed' &&
    message.error &&
    html` <span class="msg-error">${message.error.message || message.error.code}</span>`;
  return html`<li id="message-${message.id}" class="message ${inbound ? 'inbound' : 'outbound'}" data-updated="${message.updated_at}">
<p class="message-meta"><span class="message-who">${inbound ? phone(message.from) : 'You'}</span> ${time(message.created_at)}</p>
<p class="message-body">${message.body}</p>
${message.code ? html`<p class="message-code">Verification code: <strong>${message.code}</strong></p>\n` : ''}${media}<p class="message-state">${messageStatus(message)}${error}</p>
</li>`;
}

export const participantOf = (message: MessageView) => (message.direction === 'inbound' ? message.from : message.to);

/** A conversation of the cell with its latest message (replaced live when a newer one comes). */
export function conversationItem(context: SignedInContext, cellId: string, participant: string, latest?: MessageView) {
  const preview = latest
    ? html`<span class="conversation-preview">${latest.direction === 'outbound' ? html`<span class="small">You:</span> ` : ''}${latest.body}</span>
<span class="conversation-meta">${time(latest.created_at)} ${messageStatus(latest)}</span>`
    : html``;
  return html`<li id="conversation-${participant.replace(/\D/g, '')}" class="conversation"${latest ? html` data-last="${latest.id}"` : ''}>
<a href="${threadPath(context, cellId, participant)}"><span class="conversation-who">${phone(participant)}</span>
${preview}</a>
</li>`;
}

/**
 * What the page says about live updates: a plain reload before the script connects (or without
 * it). Older pages (a cursor) are not live: new messages belong on the first page.
 */
export const liveStatus = (
  liveUrl: string | null,
  offline = 'Reload the page to see new messages.',
  live = 'Live: new messages and status changes appear here as they happen.',
) =>
  liveUrl &&
  html`<p id="live-status" class="live-status small" role="status" data-live-url="${liveUrl}" data-live-text="${live}">${offline}</p>`;

const cellColumns = (context: SignedInContext): RowColumn<CellView>[] => [
  {
    label: 'Cell',
    value: (cell) =>
      html`<a href="${cellPath(context, cell.id)}">${cell.display_name}</a><br><span class="small mono">${cell.id}</span>`,
  },
  { label: 'Number', value: cellNumber },
  { label: 'Phone', value: presence },
  { label: 'Status', value: cellStatus },
];

/** A row of the cells list (replaced live when the cell changes, added when one is created). */
export const cellRow = (context: SignedInContext, cell: CellView): Html =>
  rowOf(cellColumns(context), cell, { id: `cell-row-${cell.id}`, rowHeader: true });

/** The link to a list's next (older) page. */
const older = (href: string, cursor: string | null, text: string) =>
  cursor && html`<p class="after"><a href="${href}?cursor=${encodeURIComponent(cursor)}">${text}</a></p>`;

/** `hidden` on a list's "none yet" text once it has items, and on an empty list's table. */
const hiddenIf = (condition: boolean) => (condition ? ' hidden' : '');

export function cellsPage(
  context: SignedInContext,
  view: { cells: CellView[]; nextCursor: string | null; liveUrl: string | null; notice?: Html },
): Html {
  return layout(
    { ...context, current: 'cells', scripts: SCRIPTS },
    'Cells',
    html`<div class="card wide">
<h1>Cells</h1>
${liveStatus(view.liveUrl, 'Reload the page to see phones come online or go offline.', 'Live: phones coming online or going offline, and new cells, appear here as they happen.')}
${view.notice}
<p class="actions"><a class="button primary" href="${cellsPath(context)}/new">Create a cell</a></p>
${dataTable({
  caption: html`The phone lines of ${context.signedIn.organizationName}. Open one to see its conversations and send a text.`,
  columns: cellColumns(context),
  rows: view.cells,
  empty: html`No cells yet. Create one here, or with the API: <code>POST /v1/cells {"display_name": "Support line"}</code>.`,
  rowId: (cell) => `cell-row-${cell.id}`,
  live: { tbodyId: 'cells', emptyId: 'cells-empty', className: 'cells-table' },
  more: view.nextCursor
    ? {
        href: `${cellsPath(context)}?cursor=${encodeURIComponent(view.nextCursor)}`,
        label: 'More cells',
      }
    : null,
})}
</div>`,
  );
}

/** What a cell's page and a thread's show besides their list: the cell, the live stream (older pages: none), the send form. */
type CellPageView = { cell: CellView; liveUrl: string | null; form: SendForm };

export function cellPage(
  context: SignedInContext,
  view: CellPageView & { conversations: { participant: string; latest?: MessageView }[]; nextCursor: string | null },
): Html {
  const { cell, conversations } = view;
  const here = cellPath(context, cell.id);
  const items = conversations.map((c) => conversationItem(context, cell.id, c.participant, c.latest));
  const list = html`${liveStatus(view.liveUrl)}
<p id="conversations-empty" class="small"${hiddenIf(conversations.length > 0)}>No conversations yet: texts this cell sends or receives appear here.</p>
<ul id="conversations" class="conversations">
${join(items, '\n')}
</ul>
${older(here, view.nextCursor, 'Older conversations')}`;
  return layout(
    { ...context, current: 'cells', scripts: SCRIPTS },
    `${hasError(view.form) ? 'Error: ' : ''}${cell.display_name}`,
    html`<div class="card wide cell-page" data-cell="${cell.id}">
${crumbs([[cellsPath(context), 'Cells']], cell.display_name)}
<h1>${cell.display_name}</h1>
${cellState(context, cell)}
<p class="row-actions"><a class="button secondary small-button" href="${here}/rename">Rename</a> <a class="button danger small-button" href="${here}/release">Release</a></p>
${section('conversation-list', 'Conversations', list)}
${section('send', 'New message', cell.status === 'provisioning' && !view.form.notice ? NO_SEND_YET : sendForm(context, { action: `${here}/messages`, form: view.form }))}
${quietHoursSection(context, { action: `${here}/quiet-hours`, current: cell.quiet_hours, explain: CELL_QUIET_HOURS })}
</div>`,
  );
}

export function threadPage(
  context: SignedInContext,
  view: CellPageView & {
    participant: string;
    messages: MessageView[];
    olderCursor: string | null;
    /** Where the participant is ignored for this cell (null: not ignored). */
    ignored: 'cell' | 'pod' | null;
    notice?: Html;
  },
): Html {
  const { cell, participant } = view;
  const who = phone(participant);
  const here = threadPath(context, cell.id, participant);
  const button = (action: string, label: string) => postButton(context, `${here}/${action}`, label);
  const ignored =
    view.ignored === 'pod' && cell.pod_id
      ? html`<p>${who} is ignored on every cell of <a href="${context.path}/pods/${encodeURIComponent(cell.pod_id)}#ignore">this cell's pod</a>; change it there.</p>`
      : view.ignored === 'cell'
        ? html`<p>${who} is ignored on this cell.</p>${button('unignore', 'Stop ignoring')}`
        : button('ignore', `Ignore ${who} on this cell`);
  return layout(
    { ...context, current: 'cells', scripts: SCRIPTS },
    `${hasError(view.form) ? 'Error: ' : ''}${who} — ${cell.display_name}`,
    html`<div class="card wide thread-page" data-cell="${cell.id}">
${crumbs(
  [
    [cellsPath(context), 'Cells'],
    [cellPath(context, cell.id), cell.display_name],
  ],
  who,
)}
<h1>Conversation with <span class="mono">${who}</span></h1>
${facts(
  [
    ['Other party', html`<span class="mono">${who}</span>`],
    ['Cell', cell.display_name],
  ],
  'facts party',
)}
${cellState(context, cell)}
${view.notice}
${older(here, view.olderCursor, 'Older messages')}
${liveStatus(view.liveUrl)}
<p id="thread-empty" class="small"${hiddenIf(view.messages.length > 0)}>No messages with ${who} yet.</p>
<div role="log" aria-live="polite" aria-label="Messages with ${who}">
<ol id="thread" class="thread" data-participant="${participant}">
${join([...view.messages].reverse().map(messageItem), '\n') /* oldest first, as a chat reads */}
</ol>
</div>
${!view.liveUrl && html`<p><a href="${here}">Latest messages</a></p>`}
${section('reply', 'Reply', sendForm(context, { action: `${here}/messages`, form: view.form, to: participant }))}
${section('ignore', 'Ignore', [html`<p class="small">Texts from an ignored number are still kept, but send no event or webhook and stay out of the lists.</p>\n`, ignored])}
</div>`,
  );
}
