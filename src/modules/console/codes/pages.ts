// The Codes page: per cell, the latest verification codes found in its inbound texts, newest
// first, each linking to its message in the thread. A row is rendered by the same function for the
// page and for the live stream (a new code joins the top of its cell's table).
import { html, join, type Html } from '../../../lib/html.ts';
import type { CellView } from '../../cells/service.ts';
import type { CodeView } from '../../codes/service.ts';
import { phone, time } from '../conversations/format.ts';
import { SCRIPTS, threadPath } from '../conversations/pages.ts';
import type { SignedInContext } from '../guard.ts';
import { layout } from '../layout.ts';
import { tableHead, tableRow, type Column } from '../data-table.ts';

const codesTableId = (cellId: string) => `codes-${cellId}`;

const CODE_COLUMNS: readonly Column[] = ['Code', 'Service', 'From', 'Received'];

function codeRow(context: SignedInContext, cellId: string, code: CodeView): Html {
  return tableRow(
    CODE_COLUMNS,
    [
      html`<strong class="mono code-value">${code.code}</strong>`,
      code.service ? code.service : html`<span class="small">Not named</span>`,
      html`<a class="mono" href="${threadPath(context, cellId, code.from)}#message-${code.message_id}">${phone(code.from)}</a>`,
      time(code.received_at),
    ],
    { id: `code-${code.message_id}` },
  );
}

export interface CellCodes {
  cell: CellView;
  codes: CodeView[];
}

function cellSection(context: SignedInContext, { cell, codes }: CellCodes): Html {
  const headingId = `codes-heading-${cell.id}`;
  return html`<section id="cell-codes-${cell.id}" class="cell-codes" data-live-part aria-labelledby="${headingId}">
<h2 id="${headingId}">${cell.display_name} <span class="small mono">${cell.phone_number ? phone(cell.phone_number) : 'no number yet'}</span></h2>
<p id="${codesTableId(cell.id)}-empty" class="small"${codes.length > 0 ? ' hidden' : ''}>No codes yet: a text with a one-time code sent to this number appears here.</p>
<table${codes.length === 0 ? ' hidden' : ''}>
<caption>Latest codes received by ${cell.display_name}, newest first.</caption>
${tableHead(CODE_COLUMNS)}
<tbody id="${codesTableId(cell.id)}" data-cell="${cell.id}">
${join(
  codes.map((code) => codeRow(context, cell.id, code)),
  '\n',
)}
</tbody>
</table>
</section>`;
}

export function codesPage(context: SignedInContext, view: { cells: CellCodes[]; liveUrl: string }): Html {
  return layout(
    { ...context, current: 'codes', scripts: SCRIPTS },
    'Verification codes',
    html`<div class="card wide">
<h1>Verification codes</h1>
<p class="lead">One-time codes found in the texts your cells receive (the API's <code>GET /v1/cells/{cell_id}/codes</code>).</p>
<p id="live-status" class="live-status small" role="status" data-live-url="${view.liveUrl}" data-live-text="Live: new codes appear here as they arrive.">Reload the page to see new codes.</p>
${
  view.cells.length === 0
    ? html`<p>No cells yet. <a href="${context.path}/cells/new">Create a cell</a> to receive codes.</p>`
    : join(
        view.cells.map((entry) => cellSection(context, entry)),
        '\n',
      )
}
</div>`,
  );
}
