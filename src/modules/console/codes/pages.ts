// The Codes page: per cell, the latest verification codes found in its inbound texts, newest
// first, each linking to its message in the thread. When a code arrives the live script reads each
// cell's section (data-live-part) again from the page.
import { html, join, type Html } from '../../../lib/html.ts';
import type { CellView } from '../../cells/service.ts';
import type { CodeView } from '../../codes/service.ts';
import { phone, time } from '../conversations/format.ts';
import { liveStatus, SCRIPTS, threadPath } from '../conversations/pages.ts';
import type { SignedInContext } from '../guard.ts';
import { layout } from '../layout.ts';
import { dataTable } from '../data-table.ts';

type CellCodes = { cell: CellView; codes: CodeView[] };

function cellSection(context: SignedInContext, { cell, codes }: CellCodes): Html {
  const headingId = `codes-heading-${cell.id}`;
  const table = dataTable<CodeView>({
    caption: `Latest codes received by ${cell.display_name}, newest first.`,
    columns: [
      { label: 'Code', value: (code) => html`<strong class="mono code-value">${code.code}</strong>` },
      { label: 'Service', value: (code) => code.service || html`<span class="small">Not named</span>` },
      {
        label: 'From',
        value: (code) =>
          html`<a class="mono" href="${threadPath(context, cell.id, code.from)}#message-${code.message_id}">${phone(code.from)}</a>`,
      },
      { label: 'Received', value: (code) => time(code.received_at) },
    ],
    rows: codes,
    rowId: (code) => `code-${code.message_id}`,
    empty: html`<span class="small">No codes yet: a text with a one-time code sent to this number appears here.</span>`,
  });
  return html`<section id="cell-codes-${cell.id}" class="cell-codes" data-live-part aria-labelledby="${headingId}">
<h2 id="${headingId}">${cell.display_name} <span class="small mono">${cell.phone_number ? phone(cell.phone_number) : 'no number yet'}</span></h2>
${table}
</section>`;
}

export function codesPage(context: SignedInContext, view: { cells: CellCodes[]; liveUrl: string }): Html {
  const sections = view.cells.map((entry) => cellSection(context, entry));
  return layout(
    { ...context, current: 'codes', scripts: SCRIPTS },
    'Verification codes',
    html`<div class="card wide">
<h1>Verification codes</h1>
<p class="lead">One-time codes found in the texts your cells receive (the API's <code>GET /v1/cells/{cell_id}/codes</code>).</p>
${liveStatus(view.liveUrl, 'Reload the page to see new codes.', 'Live: new codes appear here as they arrive.')}
${sections.length ? join(sections, '\n') : html`<p>No cells yet. <a href="${context.path}/cells/new">Create a cell</a> to receive codes.</p>`}
</div>`,
  );
}
