// The operator's organizations (list with state, tier, balance and cells; one organization with
// its cells, ledger, usage and the suspend / reinstate / credit / grant forms, each with a reason)
// and x402 deposits (held ones assigned to an organization by a form).
import { html, join, type Html, type HtmlValue } from '../../../lib/html.ts';
import { field } from '../layout.ts';
import { dollars, dollarsOfNumber } from '../../billing/money.ts';
import { tableHead, tableRow, type Column } from '../data-table.ts';
import { monthName, usageChart, usageTable, type DailyUsage, type Month } from '../account/chart.ts';
import { stateTag, when } from '../account/shared.ts';
import { csrfInput, sectionPage } from './layout.ts';
import type { OperatorSession } from './service.ts';

const BASE = '/console/operator';
export const organizationPath = (id: string) => `${BASE}/organizations/${encodeURIComponent(id)}`;

const ORGANIZATION_COLUMNS: readonly Column[] = [
  'Organization',
  'Status',
  'Billing state',
  'Tier',
  { label: 'Balance', numeric: true },
  { label: 'Active cells', numeric: true },
  'Period ends',
];
const CELL_COLUMNS: readonly Column[] = ['Cell', { label: 'Number', className: 'mono' }, 'Status', 'Phone'];
const LEDGER_COLUMNS: readonly Column[] = [
  'When',
  'Kind',
  { label: 'Amount', numeric: true },
  'Description',
  { label: 'Reference', className: 'mono small' },
];
const USAGE_COLUMNS: readonly Column[] = [
  'Type',
  { label: 'Quantity', numeric: true },
  { label: 'Records', numeric: true },
  { label: 'Amount', numeric: true },
];
const depositColumns = (status: 'held' | 'credited'): readonly Column[] => [
  { label: 'Deposit', className: 'mono' },
  { label: 'Received' },
  { label: 'Amount', numeric: true },
  { label: 'Network' },
  { label: 'From', className: 'mono small' },
  { label: 'Transaction', className: 'mono small' },
  { label: status === 'held' ? 'Assign to' : 'Organization' },
];

export interface OrganizationListItem {
  id: string;
  name: string;
  email: string;
  status: string;
  billing_state: string;
  tier: string | null;
  current_period_end: string | null;
  prepaid_balance_usd: number;
  active_cells: number;
}

const STATE_KIND: Record<string, 'ok' | 'warn' | 'bad' | 'idle'> = {
  active: 'ok',
  exempt: 'ok',
  past_due: 'warn',
  suspended: 'bad',
  inactive: 'idle',
};
export const billingState = (state: string) => stateTag(STATE_KIND[state] ?? 'idle', state.replace('_', ' '));

export function organizationsPage(
  session: OperatorSession,
  organizations: OrganizationListItem[],
  options: { states: readonly string[]; state: string | null; email: string; nextCursor: string | null },
): Html {
  const rows = join(
    organizations.map((org) =>
      tableRow(
        ORGANIZATION_COLUMNS,
        [
          html`<a href="${organizationPath(org.id)}">${org.name}</a><br><span class="small">${org.email}</span>`,
          org.status,
          billingState(org.billing_state),
          org.tier ? org.tier : html`<span class="small">None</span>`,
          dollarsOfNumber(org.prepaid_balance_usd),
          org.active_cells,
          when(org.current_period_end, 'No period'),
        ],
        { rowHeader: true },
      ),
    ),
    '\n',
  );
  const stateOptions = ['', ...options.states].map(
    (state) =>
      html`<option value="${state}"${state === (options.state ?? '') ? ' selected' : ''}>${state === '' ? 'Any state' : state.replace('_', ' ')}</option>`,
  );
  const query = new URLSearchParams();
  if (options.state) query.set('state', options.state);
  if (options.email) query.set('email', options.email);
  if (options.nextCursor) query.set('cursor', options.nextCursor);
  return sectionPage(
    { session, current: 'organizations' },
    'Organizations',
    html`<h1>Organizations</h1>
<form method="get" action="${BASE}/organizations" class="filters">
<div class="field"><label for="state">Billing state</label><select id="state" name="state">${stateOptions}</select></div>
<div class="field"><label for="email">Email</label><input id="email" name="email" type="email" value="${options.email}" maxlength="254" autocomplete="off"></div>
<button type="submit" class="secondary">Show</button>
</form>
${
  organizations.length === 0
    ? html`<p>No organization matches.</p>`
    : html`<div class="table-scroll" role="region" aria-labelledby="orgs-caption" tabindex="0"><table>
<caption id="orgs-caption">Organizations, newest first, with their billing</caption>
${tableHead(ORGANIZATION_COLUMNS)}
<tbody>
${rows}
</tbody>
</table></div>`
}
${options.nextCursor ? html`<p class="after"><a href="${BASE}/organizations?${query.toString()}">More organizations</a></p>` : ''}`,
  );
}

export interface OrganizationDetail {
  id: string;
  name: string;
  email: string;
  status: string;
  created_at: string;
  verified_at: string | null;
  billing: {
    state: string;
    tier: string | null;
    prepaid_balance_usd: number;
    current_period_end: string | null;
    amount_due_usd: number;
    cells: { included: number; active: number };
  };
}

export interface LedgerView {
  id: number;
  kind: string;
  amount_usd: string;
  reference: string | null;
  description: string | null;
  created_at: string;
}

export interface UsageSummaryView {
  from: string;
  to: string;
  amount_usd: string;
  by_type: { type: string; quantity: number; records: number; amount_usd: string }[];
}

export interface CellView {
  id: string;
  display_name: string;
  phone_number: string | null;
  status: string;
  device_id: string | null;
}

/** Which form an error or a notice belongs to, and what the operator had typed. */
export type OrganizationForm = 'suspend' | 'reinstate' | 'credits' | 'grant';
export interface FormState {
  form: OrganizationForm;
  values: Record<string, string>;
  errors: Record<string, string>;
  /** A refusal of the whole action (409), said above the form. */
  refusal?: string;
}

function reasonField(form: OrganizationForm, state: FormState | undefined): Html {
  const mine = state?.form === form ? state : undefined;
  return field({
    id: `${form}-reason`,
    name: 'reason',
    label: 'Reason',
    type: 'text',
    value: mine?.values.reason,
    hint: 'Kept with the action in the audit trail.',
    error: mine?.errors.reason,
    attributes: html`maxlength="500" autocomplete="off"`,
  });
}

function actionForm(
  session: OperatorSession,
  org: OrganizationDetail,
  form: OrganizationForm,
  heading: string,
  explain: string,
  fields: HtmlValue,
  button: string,
  state: FormState | undefined,
): Html {
  const refusal =
    state?.form === form && state.refusal
      ? html`<div class="notice error" role="alert">${state.refusal}</div>`
      : html``;
  return html`<section aria-labelledby="${form}-heading">
<h2 id="${form}-heading">${heading}</h2>
<p class="small">${explain}</p>
${refusal}
<form method="post" action="${organizationPath(org.id)}/${form}" novalidate>
${csrfInput(session)}
${fields}
${reasonField(form, state)}
<button type="submit" class="${form === 'suspend' ? 'danger' : 'primary'}">${button}</button>
</form>
</section>`;
}

export function organizationPage(
  session: OperatorSession,
  org: OrganizationDetail,
  options: {
    cells: CellView[];
    ledger: LedgerView[];
    usage: UsageSummaryView;
    month: Month;
    days: DailyUsage[];
    tiers: string[];
    state?: FormState;
    notice?: Html;
  },
): Html {
  const b = org.billing;
  const state = options.state;
  const value = (form: OrganizationForm, name: string) => (state?.form === form ? state.values[name] : undefined);
  const error = (form: OrganizationForm, name: string) => (state?.form === form ? state.errors[name] : undefined);
  const tierValue = value('grant', 'tier') ?? b.tier ?? options.tiers[0] ?? '';
  const tierError = error('grant', 'tier');
  const tierSelect = html`<div class="field">
<label for="grant-tier">Tier</label>
<select id="grant-tier" name="tier"${tierError ? html` aria-invalid="true" aria-describedby="grant-tier-error"` : ''}>${[
    ...new Set([...options.tiers, tierValue]),
  ]
    .filter(Boolean)
    .map((tier) => html`<option value="${tier}"${tier === tierValue ? ' selected' : ''}>${tier}</option>`)}</select>
${tierError ? html`<p class="field-error" id="grant-tier-error">${tierError}</p>` : ''}
</div>`;
  const cells =
    options.cells.length === 0
      ? html`<p>No cells.</p>`
      : html`<table><caption>Cells that are not released</caption>
${tableHead(CELL_COLUMNS)}
<tbody>${join(
          options.cells.map((cell) =>
            tableRow(
              CELL_COLUMNS,
              [
                html`${cell.display_name}<br><span class="small mono">${cell.id}</span>`,
                cell.phone_number ?? '—',
                cell.status,
                cell.device_id
                  ? html`<a class="mono" href="${BASE}/devices/${encodeURIComponent(cell.device_id)}">${cell.device_id}</a>`
                  : '—',
              ],
              { rowHeader: true },
            ),
          ),
          '\n',
        )}</tbody></table>`;
  const ledger =
    options.ledger.length === 0
      ? html`<p>No ledger entries.</p>`
      : html`<div class="table-scroll" role="region" aria-labelledby="ledger-caption" tabindex="0"><table>
<caption id="ledger-caption">Latest ledger entries, newest first</caption>
${tableHead(LEDGER_COLUMNS)}
<tbody>${join(
          options.ledger.map((entry) =>
            tableRow(
              LEDGER_COLUMNS,
              [
                when(entry.created_at),
                entry.kind.replaceAll('_', ' '),
                dollars(entry.amount_usd),
                entry.description ? entry.description : '—',
                entry.reference ? entry.reference : '—',
              ],
              { rowHeader: true },
            ),
          ),
          '\n',
        )}</tbody></table></div>`;
  const chart = usageChart('usage-chart', options.month, options.days) ?? '';
  const usage = html`${chart}
${usageTable(options.month, options.days)}
<table><caption>Usage by type in ${monthName(options.month)}: ${dollars(options.usage.amount_usd)}</caption>
${tableHead(USAGE_COLUMNS)}
<tbody>${join(
    options.usage.by_type.map((t) =>
      tableRow(USAGE_COLUMNS, [t.type.replace('_', ' '), t.quantity, t.records, dollars(t.amount_usd)], {
        rowHeader: true,
      }),
    ),
    '\n',
  )}</tbody></table>`;
  const amountField = field({
    id: 'credits-amount',
    name: 'amount_usd',
    label: 'Amount in US dollars',
    type: 'text',
    value: value('credits', 'amount_usd'),
    hint: 'Positive, at most 2 decimals, e.g. 25.00.',
    error: error('credits', 'amount_usd'),
    attributes: html`inputmode="decimal" maxlength="16" autocomplete="off" class="amount-input"`,
  });
  const monthsField = field({
    id: 'grant-months',
    name: 'months',
    label: 'Months',
    type: 'text',
    value: value('grant', 'months') ?? '1',
    hint: 'A whole number from 1 to 120.',
    error: error('grant', 'months'),
    attributes: html`inputmode="numeric" maxlength="3" autocomplete="off"`,
  });
  const title = state && Object.keys(state.errors).length > 0 ? `Error: ${org.name}` : org.name;
  return sectionPage(
    { session, current: 'organizations' },
    title,
    html`<nav aria-label="Breadcrumb" class="crumbs"><ol><li><a href="${BASE}/organizations">Organizations</a></li><li><span aria-current="page">${org.name}</span></li></ol></nav>
<h1>${org.name}</h1>
${options.notice ?? ''}
<dl class="facts">
<dt>Organization</dt><dd class="mono">${org.id}</dd>
<dt>Email</dt><dd>${org.email}</dd>
<dt>Status</dt><dd>${org.status}</dd>
<dt>Billing state</dt><dd>${billingState(b.state)}</dd>
<dt>Tier</dt><dd>${b.tier ? b.tier : 'None'}</dd>
<dt>Prepaid balance</dt><dd>${dollarsOfNumber(b.prepaid_balance_usd)}</dd>
<dt>Amount due</dt><dd>${dollarsOfNumber(b.amount_due_usd)}</dd>
<dt>Period ends</dt><dd>${when(b.current_period_end, 'No period')}</dd>
<dt>Cells</dt><dd>${b.cells.active} active, ${b.cells.included} included in the tier</dd>
<dt>Created</dt><dd>${when(org.created_at)}</dd>
</dl>
<p><a href="${BASE}/audit?target_id=${encodeURIComponent(org.id)}">Operator actions on this organization</a></p>
<section aria-labelledby="cells-heading"><h2 id="cells-heading">Cells</h2>${cells}</section>
<section aria-labelledby="ledger-heading"><h2 id="ledger-heading">Ledger</h2>${ledger}</section>
<section aria-labelledby="usage-heading"><h2 id="usage-heading">Usage in ${monthName(options.month)}</h2>${usage}</section>
${actionForm(session, org, 'credits', 'Credit the balance', 'Adds to the prepaid balance as a ledger credit.', amountField, 'Credit', state)}
${actionForm(session, org, 'grant', 'Grant paid periods', 'Active at the tier for the months given, at zero price.', html`${tierSelect}\n${monthsField}`, 'Grant', state)}
${actionForm(session, org, 'suspend', 'Suspend', 'Sends and new cells are refused (402) until reinstated.', '', 'Suspend', state)}
${actionForm(session, org, 'reinstate', 'Reinstate', 'Back to active while its period is paid.', '', 'Reinstate', state)}`,
  );
}

export interface DepositItem {
  id: string;
  network: string;
  from: string;
  amount_usd: string;
  transaction: string;
  status: string;
  organization_id: string | null;
  created_at: string;
}

export function depositsPage(
  session: OperatorSession,
  deposits: DepositItem[],
  options: {
    status: 'held' | 'credited';
    nextCursor: string | null;
    notice?: Html;
    form?: {
      depositId: string;
      organizationId: string;
      reason: string;
      error: string;
      field: 'organization_id' | 'reason';
    };
  },
): Html {
  const rows = join(
    deposits.map((deposit) => {
      const mine = options.form?.depositId === deposit.id ? options.form : undefined;
      const orgError = mine?.field === 'organization_id';
      const reasonError = mine?.field === 'reason';
      const id = `assign-${deposit.id}`;
      const assign =
        deposit.status === 'held'
          ? html`<form method="post" action="${BASE}/deposits/${encodeURIComponent(deposit.id)}/assign" novalidate class="row-actions">
${csrfInput(session)}
<label for="${id}">Organization id for ${deposit.id}</label>
<input id="${id}" name="organization_id" type="text" value="${mine?.organizationId ?? ''}" maxlength="64" autocomplete="off" spellcheck="false"${orgError ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}>
${orgError ? html`<p class="field-error" id="${id}-error">${mine?.error ?? ''}</p>` : ''}
<label for="${id}-reason">Reason (optional)</label>
<input id="${id}-reason" name="reason" type="text" value="${mine?.reason ?? ''}" maxlength="500" autocomplete="off"${reasonError ? html` aria-invalid="true" aria-describedby="${id}-reason-error"` : ''}>
${reasonError ? html`<p class="field-error" id="${id}-reason-error">${mine?.error ?? ''}</p>` : ''}
<button type="submit" class="primary small-button">Assign</button>
</form>`
          : deposit.organization_id
            ? html`<a href="${organizationPath(deposit.organization_id)}" class="mono">${deposit.organization_id}</a>`
            : '—';
      return tableRow(
        depositColumns(options.status),
        [
          deposit.id,
          when(deposit.created_at),
          dollars(deposit.amount_usd),
          deposit.network,
          deposit.from,
          deposit.transaction,
          assign,
        ],
        { rowHeader: true },
      );
    }),
    '\n',
  );
  const tabs = join(
    (['held', 'credited'] as const).map(
      (status) =>
        html`<a href="${BASE}/deposits${status === 'held' ? '' : '?status=credited'}"${status === options.status ? html` aria-current="page"` : ''}>${status === 'held' ? 'Held' : 'Credited'}</a>`,
    ),
    ' · ',
  );
  return sectionPage(
    { session, current: 'deposits' },
    options.form ? 'Error: Deposits' : 'Deposits',
    html`<h1>Deposits</h1>
<p class="lead">x402 deposits to the service's wallet. A held deposit came from a wallet no organization has linked: assign it to credit an organization.</p>
<nav aria-label="Deposit status" class="filters small">${tabs}</nav>
${options.notice ?? ''}
${
  deposits.length === 0
    ? html`<p>No ${options.status} deposits.</p>`
    : html`<div class="table-scroll" role="region" aria-labelledby="deposits-caption" tabindex="0"><table>
<caption id="deposits-caption">${options.status === 'held' ? 'Held deposits, newest first' : 'Credited deposits, newest first'}</caption>
${tableHead(depositColumns(options.status))}
<tbody>
${rows}
</tbody>
</table></div>`
}
${options.nextCursor ? html`<p class="after"><a href="${BASE}/deposits?${options.status === 'credited' ? 'status=credited&amp;' : ''}cursor=${encodeURIComponent(options.nextCursor)}">More deposits</a></p>` : ''}`,
  );
}
