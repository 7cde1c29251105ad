// The operator audit log as a page: every operator action (who, when, what, on which target, why),
// newest first, narrowed to one target from its organization or phone page.
import { html, join, type Html, type HtmlValue } from '../../../lib/html.ts';
import { nextPage, when } from '../account/shared.ts';
import type { AuditEntry } from '../../admin/audit.ts';
import { sectionPage } from './layout.ts';
import { dataTable } from '../data-table.ts';
import { OPERATOR_PATH as BASE } from './http.ts';
import type { OperatorSession } from './service.ts';

/** The page of a target, when the console has one. */
function targetLink({ type, id }: AuditEntry['target']): Html {
  const path = type === 'organization' ? 'organizations' : type === 'device' ? 'devices' : null;
  return path
    ? html`<a class="mono" href="${BASE}/${path}/${encodeURIComponent(id)}">${id}</a>`
    : html`<span class="mono">${id}</span>`;
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
  return sectionPage(
    { session, current: 'audit' },
    'Audit',
    html`<h1>Audit</h1>
<p class="lead">Every operator action, from the console and the admin API alike: who, when, what and why.</p>
${options.targetId ? html`<p>Actions on <span class="mono">${options.targetId}</span> only. <a href="${BASE}/audit">See every action</a>.</p>` : ''}
${dataTable({
  caption: 'Operator actions, newest first',
  scrollId: 'audit-caption',
  empty: 'No operator action recorded yet.',
  rows: entries,
  columns: [
    { label: 'When', value: (entry) => when(entry.created_at) },
    {
      label: 'Who',
      value: ({ actor }) =>
        html`${actor.label ?? 'Unlabelled token'}<br><span class="small mono">${actor.admin_token_id}</span>`,
    },
    { label: 'Action', value: (entry) => html`<span class="tag mono">${entry.action}</span>` },
    { label: 'Target', value: ({ target }) => html`${target.type} ${targetLink(target)}` },
    { label: 'Reason', value: (entry) => entry.reason || html`<span class="small">None given</span>` },
    { label: 'Detail', className: 'small', value: detail },
  ],
  more: nextPage(`${BASE}/audit`, options.nextCursor, 'Older actions', { target_id: options.targetId }),
})}`,
  );
}
