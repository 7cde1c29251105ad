// The operator audit log as a page: every operator action (who, when, what, on which target, why),
// newest first, narrowed to one target from its organization or phone page.
import { html, join, type Html, type HtmlValue } from '../../../lib/html.ts';
import { when } from '../account/shared.ts';
import type { AuditEntry } from '../../admin/audit.ts';
import { sectionPage } from './layout.ts';
import { tableHead, tableRow, type Column } from '../data-table.ts';
import type { OperatorSession } from './service.ts';

const BASE = '/console/operator';
const AUDIT_COLUMNS: readonly Column[] = [
  'When',
  'Who',
  'Action',
  'Target',
  'Reason',
  { label: 'Detail', className: 'small' },
];

/** The page of a target, when the console has one. */
function targetLink(target: AuditEntry['target']): Html {
  const id = target.id;
  if (target.type === 'organization')
    return html`<a class="mono" href="${BASE}/organizations/${encodeURIComponent(target.id)}">${id}</a>`;
  if (target.type === 'device')
    return html`<a class="mono" href="${BASE}/devices/${encodeURIComponent(target.id)}">${id}</a>`;
  return html`<span class="mono">${id}</span>`;
}

function detail(entry: AuditEntry): HtmlValue {
  if (!entry.detail || Object.keys(entry.detail).length === 0) return '—';
  return join(
    Object.entries(entry.detail).map(
      ([key, value]) => `${key.replaceAll('_', ' ')}: ${typeof value === 'string' ? value : JSON.stringify(value)}`,
    ),
    html`<br>`,
  );
}

export function auditPage(
  session: OperatorSession,
  entries: AuditEntry[],
  options: { targetId: string | null; nextCursor: string | null },
): Html {
  const rows = join(
    entries.map((entry) =>
      tableRow(
        AUDIT_COLUMNS,
        [
          when(entry.created_at),
          html`${entry.actor.label ?? 'Unlabelled token'}<br><span class="small mono">${entry.actor.admin_token_id}</span>`,
          html`<span class="tag mono">${entry.action}</span>`,
          html`${entry.target.type} ${targetLink(entry.target)}`,
          entry.reason ? entry.reason : html`<span class="small">None given</span>`,
          detail(entry),
        ],
        { rowHeader: true },
      ),
    ),
    '\n',
  );
  const more = new URLSearchParams();
  if (options.targetId) more.set('target_id', options.targetId);
  if (options.nextCursor) more.set('cursor', options.nextCursor);
  return sectionPage(
    { session, current: 'audit' },
    'Audit',
    html`<h1>Audit</h1>
<p class="lead">Every operator action, from the console and the admin API alike: who, when, what and why.</p>
${options.targetId ? html`<p>Actions on <span class="mono">${options.targetId}</span> only. <a href="${BASE}/audit">See every action</a>.</p>` : ''}
${
  entries.length === 0
    ? html`<p>No operator action recorded yet.</p>`
    : html`<div class="table-scroll" role="region" aria-labelledby="audit-caption" tabindex="0"><table>
<caption id="audit-caption">Operator actions, newest first</caption>
${tableHead(AUDIT_COLUMNS)}
<tbody id="audit">
${rows}
</tbody>
</table></div>`
}
${options.nextCursor ? html`<p class="after"><a href="${BASE}/audit?${more.toString()}">Older actions</a></p>` : ''}`,
  );
}
