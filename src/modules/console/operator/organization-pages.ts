// The operator's organizations (list with state, tier, balance and cells; one organization with
// its cells, ledger, usage and the suspend / reinstate / credit / grant forms, each with a reason)
// and x402 deposits (held ones assigned to an organization by a form).
import { html, type Html } from '../../../lib/html.ts';
import { crumbs, csrfField, errorNotice, facts, field, filterForm, selectField } from '../layout.ts';
import type { Refusal } from '../binder.ts';
import { dollars, dollarsOfNumber, usdExact } from '../../billing/money.ts';
import { dataTable } from '../data-table.ts';
import { monthName, usageChart, usageTable, type DailyUsage, type Month } from '../account/chart.ts';
import { nextPage, stateTag, when } from '../account/shared.ts';
import type { BillingOperator } from '../../billing/operator.ts';
import type { DepositsService } from '../../billing/deposits.ts';
import type { UsageService } from '../../billing/usage.ts';
import { actionForm, sectionPage, tabs } from './layout.ts';
import type { OperatorRepository } from './repository.ts';
import type { OperatorSession } from './service.ts';

const BASE = '/console/operator';
export const organizationPath = (id: string) => `${BASE}/organizations/${encodeURIComponent(id)}`;

export type OrganizationListItem = Awaited<
  ReturnType<BillingOperator['listOrganizations']>
>['organizations'][number] & {
  prepaid_balance_usd: number;
  active_cells: number;
};
type OrganizationDetail = Awaited<ReturnType<BillingOperator['organization']>>;
type DepositItem = Awaited<ReturnType<DepositsService['list']>>['deposits'][number];

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
  return sectionPage(
    { session, current: 'organizations' },
    'Organizations',
    html`<h1>Organizations</h1>
${filterForm(
  `${BASE}/organizations`,
  html`${selectField({ id: 'state', name: 'state', label: 'Billing state', value: options.state ?? '', choices: ['', ...options.states].map((state) => [state, state === '' ? 'Any state' : state.replace('_', ' ')]) })}
${field({ id: 'email', name: 'email', label: 'Email', type: 'email', value: options.email, optional: true, attributes: html`maxlength="254" autocomplete="off"` })}`,
)}
${dataTable({
  caption: 'Organizations, newest first, with their billing',
  scrollId: 'orgs-caption',
  empty: 'No organization matches.',
  rows: organizations,
  columns: [
    {
      label: 'Organization',
      value: (org) =>
        html`<a href="${organizationPath(org.id)}">${org.name}</a><br><span class="small">${org.email}</span>`,
    },
    { label: 'Status', value: (org) => org.status },
    { label: 'Billing state', value: (org) => billingState(org.billing_state) },
    { label: 'Tier', value: (org) => org.tier ?? html`<span class="small">None</span>` },
    { label: 'Balance', numeric: true, value: (org) => dollarsOfNumber(org.prepaid_balance_usd) },
    { label: 'Active cells', numeric: true, value: (org) => org.active_cells },
    { label: 'Period ends', value: (org) => when(org.current_period_end, 'No period') },
  ],
  more: nextPage(`${BASE}/organizations`, options.nextCursor, 'More organizations', {
    state: options.state,
    email: options.email,
  }),
})}`,
  );
}

/** Which form an error or a notice belongs to, and what the operator had typed. */
export type OrganizationForm = 'suspend' | 'reinstate' | 'credits' | 'grant';
export type FormState = Omit<Refusal, 'status'> & { form: OrganizationForm };

export function organizationPage(
  session: OperatorSession,
  org: OrganizationDetail,
  options: {
    cells: Awaited<ReturnType<OperatorRepository['cellsOf']>>;
    ledger: Awaited<ReturnType<OperatorRepository['ledger']>>;
    usage: Awaited<ReturnType<UsageService['summary']>>;
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
  const tiers = [...new Set([...options.tiers, tierValue])].filter(Boolean);
  const form = (id: OrganizationForm, heading: string, explain: string, button: string, fields?: Html) =>
    html`<section aria-labelledby="${id}-heading">
${actionForm(session, {
  id,
  heading,
  level: 2,
  explain,
  action: `${organizationPath(org.id)}/${id}`,
  sent: state?.form === id ? state : undefined,
  fields,
  reason: { hint: 'Kept with the action in the audit trail.' },
  button,
  tone: id === 'suspend' ? 'danger' : 'primary',
})}
</section>`;
  const title = state && Object.keys(state.errors).length > 0 ? `Error: ${org.name}` : org.name;
  return sectionPage(
    { session, current: 'organizations' },
    title,
    html`${crumbs([[`${BASE}/organizations`, 'Organizations']], org.name)}
<h1>${org.name}</h1>
${options.notice ?? ''}
${facts([
  ['Organization', html`<span class="mono">${org.id}</span>`],
  ['Email', org.email],
  ['Status', org.status],
  ['Billing state', billingState(b.state)],
  ['Tier', b.tier ?? 'None'],
  ['Prepaid balance', dollarsOfNumber(b.prepaid_balance_usd)],
  ['Amount due', dollarsOfNumber(b.amount_due_usd)],
  ['Period ends', when(b.current_period_end, 'No period')],
  ['Cells', `${b.cells.active} active, ${b.cells.included} included in the tier`],
  ['Created', when(org.created_at)],
])}
<p><a href="${BASE}/audit?target_id=${encodeURIComponent(org.id)}">Operator actions on this organization</a></p>
<section aria-labelledby="cells-heading"><h2 id="cells-heading">Cells</h2>${dataTable({
      caption: 'Cells that are not released',
      empty: 'No cells.',
      rows: options.cells,
      columns: [
        { label: 'Cell', value: (cell) => html`${cell.display_name}<br><span class="small mono">${cell.id}</span>` },
        { label: 'Number', className: 'mono', value: (cell) => cell.phone_number ?? '—' },
        { label: 'Status', value: (cell) => cell.status },
        {
          label: 'Phone',
          value: (cell) =>
            cell.device_id
              ? html`<a class="mono" href="${BASE}/devices/${encodeURIComponent(cell.device_id)}">${cell.device_id}</a>`
              : '—',
        },
      ],
    })}</section>
<section aria-labelledby="ledger-heading"><h2 id="ledger-heading">Ledger</h2>${dataTable({
      caption: 'Latest ledger entries, newest first',
      scrollId: 'ledger-caption',
      empty: 'No ledger entries.',
      rows: options.ledger,
      columns: [
        { label: 'When', value: (entry) => when(entry.created_at) },
        { label: 'Kind', value: (entry) => entry.kind.replaceAll('_', ' ') },
        { label: 'Amount', numeric: true, value: (entry) => dollars(usdExact(Number(entry.amount_micros))) },
        { label: 'Description', value: (entry) => entry.description || '—' },
        { label: 'Reference', className: 'mono small', value: (entry) => entry.reference || '—' },
      ],
    })}</section>
<section aria-labelledby="usage-heading"><h2 id="usage-heading">Usage in ${monthName(options.month)}</h2>${usageChart('usage-chart', options.month, options.days) ?? ''}
${usageTable(options.month, options.days)}
${dataTable({
  caption: `Usage by type in ${monthName(options.month)}: ${dollars(options.usage.amount_usd)}`,
  empty: '',
  rows: options.usage.by_type,
  columns: [
    { label: 'Type', value: (t) => t.type.replace('_', ' ') },
    { label: 'Quantity', numeric: true, value: (t) => t.quantity },
    { label: 'Records', numeric: true, value: (t) => t.records },
    { label: 'Amount', numeric: true, value: (t) => dollars(t.amount_usd) },
  ],
})}</section>
${form(
  'credits',
  'Credit the balance',
  'Adds to the prepaid balance as a ledger credit.',
  'Credit',
  field({
    id: 'credits-amount',
    name: 'amount_usd',
    label: 'Amount in US dollars',
    type: 'text',
    value: value('credits', 'amount_usd'),
    hint: 'Positive, at most 2 decimals, e.g. 25.00.',
    error: error('credits', 'amount_usd'),
    attributes: html`inputmode="decimal" maxlength="16" autocomplete="off" class="amount-input"`,
  }),
)}
${form(
  'grant',
  'Grant paid periods',
  'Active at the tier for the months given, at zero price.',
  'Grant',
  html`${selectField({ id: 'grant-tier', name: 'tier', label: 'Tier', value: tierValue, choices: tiers.map((tier) => [tier, tier]), error: error('grant', 'tier') })}
${field({
  id: 'grant-months',
  name: 'months',
  label: 'Months',
  type: 'text',
  value: value('grant', 'months') ?? '1',
  hint: 'A whole number from 1 to 120.',
  error: error('grant', 'months'),
  attributes: html`inputmode="numeric" maxlength="3" autocomplete="off"`,
})}`,
)}
${form('suspend', 'Suspend', 'Sends and new cells are refused (402) until reinstated.', 'Suspend')}
${form('reinstate', 'Reinstate', 'Back to active while its period is paid.', 'Reinstate')}`,
  );
}

export function depositsPage(
  session: OperatorSession,
  deposits: DepositItem[],
  options: {
    status: 'held' | 'credited';
    nextCursor: string | null;
    notice?: Html;
    /** The assign form of a deposit as sent, with its refusal (a notice: above the list). */
    form?: Omit<Refusal, 'status'> & { depositId: string };
  },
): Html {
  const { form } = options;
  const assign = (deposit: DepositItem) => {
    if (deposit.status !== 'held')
      return deposit.organization_id
        ? html`<a href="${organizationPath(deposit.organization_id)}" class="mono">${deposit.organization_id}</a>`
        : '—';
    const mine = form?.depositId === deposit.id ? form : undefined;
    const id = `assign-${deposit.id}`;
    return html`<form method="post" action="${BASE}/deposits/${encodeURIComponent(deposit.id)}/assign" novalidate class="row-actions">
${csrfField(session)}
${field({ id, name: 'organization_id', label: `Organization id for ${deposit.id}`, type: 'text', value: mine?.values.organization_id, error: mine?.errors.organization_id, attributes: html`maxlength="64" spellcheck="false" autocomplete="off"` })}
${field({ id: `${id}-reason`, name: 'reason', label: 'Reason (optional)', type: 'text', value: mine?.values.reason, error: mine?.errors.reason, optional: true, attributes: html`maxlength="500" autocomplete="off"` })}
<button type="submit" class="primary small-button">Assign</button>
</form>`;
  };
  const held = options.status === 'held';
  return sectionPage(
    { session, current: 'deposits' },
    form ? 'Error: Deposits' : 'Deposits',
    html`<h1>Deposits</h1>
<p class="lead">x402 deposits to the service's wallet. A held deposit came from a wallet no organization has linked: assign it to credit an organization.</p>
${tabs('Deposit status', [
  [`${BASE}/deposits`, 'Held', held],
  [`${BASE}/deposits?status=credited`, 'Credited', !held],
])}
${options.notice ?? ''}
${errorNotice(form?.notice)}
${dataTable({
  caption: held ? 'Held deposits, newest first' : 'Credited deposits, newest first',
  scrollId: 'deposits-caption',
  empty: `No ${options.status} deposits.`,
  rows: deposits,
  columns: [
    { label: 'Deposit', className: 'mono', value: (deposit) => deposit.id },
    { label: 'Received', value: (deposit) => when(deposit.created_at) },
    { label: 'Amount', numeric: true, value: (deposit) => dollars(deposit.amount_usd) },
    { label: 'Network', value: (deposit) => deposit.network },
    { label: 'From', className: 'mono small', value: (deposit) => deposit.from },
    { label: 'Transaction', className: 'mono small', value: (deposit) => deposit.transaction },
    { label: held ? 'Assign to' : 'Organization', value: assign },
  ],
  more: nextPage(`${BASE}/deposits`, options.nextCursor, 'More deposits', { status: held ? null : 'credited' }),
})}`,
  );
}
