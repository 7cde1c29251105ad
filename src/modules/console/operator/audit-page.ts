// The operator audit log as a page: every operator action (who, when, what, on which target, why),
// newest first, narrowed to one target from its organization or phone page.
import { html, join, type Html, type HtmlValue } from '../../../lib/html.ts';
import { when } from '../account/shared.ts';
import type { AuditEntry } from '../../admin/audit.ts';
import { sectionPage } from './layout.ts';
import type { OperatorSession } from './service.ts';

const BASE = '/console/operator';

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
    entries.map(
      (entry) => html`<tr>
<th scope="row">${when(entry.created_at)}</th>
<td>${entry.actor.label ?? 'Unlabelled token'}<br><span class="small mono">${entry.actor.admin_token_id}</span></td>
<td><span class="tag mono">${entry.action}</span></td>
<td>${entry.target.type} ${targetLink(entry.target)}</td>
<td>${entry.reason ? entry.reason : html`<span class="small">None given</span>`}</td>
<td class="small">${detail(entry)}</td>
</tr>`,
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
<thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Reason</th><th scope="col">Detail</th></tr></thead>
<tbody id="audit">
${rows}
</tbody>
</table></div>`
}
${options.nextCursor ? html`<p class="after"><a href="${BASE}/audit?${more.toString()}">Older actions</a></p>` : ''}`,
  );
}
