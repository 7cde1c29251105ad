// The Codes page: per cell, the latest verification codes found in its inbound texts, newest
// first, each linking to its message in the thread. A row is rendered by the same function for the
// page and for the live stream (a new code joins the top of its cell's table).
import type { CellView } from '../../cells/service.ts';
import type { CodeView } from '../../codes/service.ts';
import { phone, time } from '../conversations/format.ts';
import { SCRIPTS, threadPath } from '../conversations/pages.ts';
import type { SignedInContext } from '../guard.ts';
import { escape, layout } from '../layout.ts';

const codesTableId = (cellId: string) => `codes-${cellId}`;

function codeRow(context: SignedInContext, cellId: string, code: CodeView): string {
  return `<tr id="code-${escape(code.message_id)}">
<td><strong class="mono code-value">${escape(code.code)}</strong></td>
<td>${code.service ? escape(code.service) : '<span class="small">Not named</span>'}</td>
<td><a class="mono" href="${threadPath(context, cellId, code.from)}#message-${escape(code.message_id)}">${escape(phone(code.from))}</a></td>
<td>${time(code.received_at)}</td>
</tr>`;
}

export interface CellCodes {
  cell: CellView;
  codes: CodeView[];
}

function cellSection(context: SignedInContext, { cell, codes }: CellCodes): string {
  const headingId = `codes-heading-${escape(cell.id)}`;
  return `<section id="cell-codes-${escape(cell.id)}" class="cell-codes" data-live-part aria-labelledby="${headingId}">
<h2 id="${headingId}">${escape(cell.display_name)} <span class="small mono">${cell.phone_number ? escape(phone(cell.phone_number)) : 'no number yet'}</span></h2>
<p id="${codesTableId(cell.id)}-empty" class="small"${codes.length > 0 ? ' hidden' : ''}>No codes yet: a text with a one-time code sent to this number appears here.</p>
<table${codes.length === 0 ? ' hidden' : ''}>
<caption>Latest codes received by ${escape(cell.display_name)}, newest first.</caption>
<thead><tr><th scope="col">Code</th><th scope="col">Service</th><th scope="col">From</th><th scope="col">Received</th></tr></thead>
<tbody id="${codesTableId(cell.id)}" data-cell="${escape(cell.id)}">
${codes.map((code) => codeRow(context, cell.id, code)).join('\n')}
</tbody>
</table>
</section>`;
}

export function codesPage(context: SignedInContext, view: { cells: CellCodes[]; liveUrl: string }): string {
  return layout(
    { ...context, current: 'codes', scripts: SCRIPTS },
    'Verification codes',
    `<div class="card wide">
<h1>Verification codes</h1>
<p class="lead">One-time codes found in the texts your cells receive (the API's <code>GET /v1/cells/{cell_id}/codes</code>).</p>
<p id="live-status" class="live-status small" role="status" data-live-url="${escape(view.liveUrl)}" data-live-text="Live: new codes appear here as they arrive.">Reload the page to see new codes.</p>
${view.cells.length === 0 ? `<p>No cells yet. <a href="${context.path}/cells/new">Create a cell</a> to receive codes.</p>` : view.cells.map((entry) => cellSection(context, entry)).join('\n')}
</div>`,
  );
}
