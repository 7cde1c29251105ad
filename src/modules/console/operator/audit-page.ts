// The operator audit log as a page: every operator action (who, when, what, on which target, why),
// newest first, narrowed to one target from its organization or phone page.
import { escape } from '../layout.ts';
import { when } from '../account/shared.ts';
import type { AuditEntry } from '../../admin/audit.ts';
import { sectionPage } from './layout.ts';
import type { OperatorSession } from './service.ts';

const BASE = '/console/operator';

/** The page of a target, when the console has one. */
function targetLink(target: AuditEntry['target']): string {
  const id = escape(target.id);
  if (target.type === 'organization')
    return `<a class="mono" href="${BASE}/organizations/${encodeURIComponent(target.id)}">${id}</a>`;
  if (target.type === 'device')
    return `<a class="mono" href="${BASE}/devices/${encodeURIComponent(target.id)}">${id}</a>`;
  return `<span class="mono">${id}</span>`;
}

function detail(entry: AuditEntry): string {
  if (!entry.detail || Object.keys(entry.detail).length === 0) return '—';
  return Object.entries(entry.detail)
    .map(
      ([key, value]) =>
        `${escape(key.replaceAll('_', ' '))}: ${escape(typeof value === 'string' ? value : JSON.stringify(value))}`,
    )
    .join('<br>');
}

export function auditPage(
  session: OperatorSession,
  entries: AuditEntry[],
  options: { targetId: string | null; nextCursor: string | null },
): string {
  const rows = entries
    .map(
      (entry) => `<tr>
<th scope="row">${when(entry.created_at)}</th>
<td>${escape(entry.actor.label ?? 'Unlabelled token')}<br><span class="small mono">${escape(entry.actor.admin_token_id)}</span></td>
<td><span class="tag mono">${escape(entry.action)}</span></td>
<td>${escape(entry.target.type)} ${targetLink(entry.target)}</td>
<td>${entry.reason ? escape(entry.reason) : '<span class="small">None given</span>'}</td>
<td class="small">${detail(entry)}</td>
</tr>`,
    )
    .join('\n');
  const more = new URLSearchParams();
  if (options.targetId) more.set('target_id', options.targetId);
  if (options.nextCursor) more.set('cursor', options.nextCursor);
  return sectionPage(
    { session, current: 'audit' },
    'Audit',
    `<h1>Audit</h1>
<p class="lead">Every operator action, from the console and the admin API alike: who, when, what and why.</p>
${options.targetId ? `<p>Actions on <span class="mono">${escape(options.targetId)}</span> only. <a href="${BASE}/audit">See every action</a>.</p>` : ''}
${
  entries.length === 0
    ? '<p>No operator action recorded yet.</p>'
    : `<div class="table-scroll" role="region" aria-labelledby="audit-caption" tabindex="0"><table>
<caption id="audit-caption">Operator actions, newest first</caption>
<thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Reason</th><th scope="col">Detail</th></tr></thead>
<tbody id="audit">
${rows}
</tbody>
</table></div>`
}
${options.nextCursor ? `<p class="after"><a href="${BASE}/audit?${escape(more.toString())}">Older actions</a></p>` : ''}`,
  );
}
