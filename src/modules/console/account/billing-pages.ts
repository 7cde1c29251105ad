// The billing section: status (organization, billing state, plan, period, balance), the pay
// form (what to pay for, then one button per rail), the x402/MPP payment details an agent uses,
// and the month's usage with its chart and table.
import { html, join, type Html } from '../../../lib/html.ts';
import type { PaymentDetails } from '../../billing/service.ts';
import { dollars, dollarsOfNumber } from '../../billing/money.ts';
import type { SignedInContext } from '../guard.ts';
import { csrfField, facts, field, hidden, section } from '../layout.ts';
import { dataTable } from '../data-table.ts';
import { monthName, usageChart, usageTable } from './chart.ts';
import type { BillingView } from './billing-routes.ts';
import { capitalized, choiceGroup, fieldset, notice, sectionPage, stateTag, when } from './shared.ts';
import { plural } from '../../../lib/plural.ts';

export const RAILS = ['card_processor', 'x402', 'mpp'] as const;
export type Rail = (typeof RAILS)[number];
export const RAIL_NAMES: Record<Rail, string> = { card_processor: 'Card payment', x402: 'x402', mpp: 'MPP' };

export interface PayForm {
  intent?: string;
  amount?: string;
  /** The console page the payment started from (safeNext), where the card page leads back. */
  back?: string;
  errors?: { intent?: string; amount_usd?: string; rail?: string };
}

/** Payment details asked for with an x402 or MPP button: how an agent pays that intent. */
type ShownPayment = { rail: 'x402' | 'mpp'; details: PaymentDetails; body: Record<string, string> };

/** Each billing state: its tag and what it means ("{end}": the end of the paid period). */
const STATES: Record<string, [Parameters<typeof stateTag>[0], string, string]> = {
  inactive: ['idle', 'No plan yet', 'Choose a plan below to create cells. Keys, webhooks and reads work without one.'],
  active: ['ok', 'Active', 'Paid through {end}; the next period is taken from the prepaid balance when it covers it.'],
  past_due: [
    'warn',
    'Past due',
    'The period ended unpaid. Sending continues for 7 days after its end; pay the amount due to keep it going.',
  ],
  suspended: ['bad', 'Suspended', 'Sending and new cells are blocked until the amount due is paid.'],
  exempt: ['ok', 'Billing off', 'This deployment does not charge: nothing is ever due.'],
};

const tierTerms = (tier: BillingView['tiers'][number], period: string) =>
  `${dollars(tier.priceMicros)} ${period}, ${plural(tier.includedCells, 'cell')} included`;

function statusSection(view: BillingView): Html {
  const { status } = view;
  const [kind, label, explain] = STATES[status.state];
  const end = status.current_period_end?.slice(0, 10) ?? 'the current period';
  const tier = view.tiers.find((t) => t.name === status.tier);
  return section(
    'status',
    'Status',
    facts([
      ['Organization', status.state === 'suspended' ? stateTag('bad', 'Suspended') : stateTag('ok', 'Active')],
      ['Billing', html`${stateTag(kind, label)}<br><span class="small">${explain.replace('{end}', end)}</span>`],
      ['Plan', tier ? `${capitalized(tier.name)}: ${tierTerms(tier, 'a month')}` : (status.tier ?? 'None yet')],
      ['Period ends', when(status.current_period_end, 'No period yet')],
      ['Prepaid balance', html`<strong class="balance">${dollarsOfNumber(status.prepaid_balance_usd)}</strong>`],
      ['Amount due', status.amount_due_usd > 0 ? stateTag('warn', dollarsOfNumber(status.amount_due_usd)) : '$0.00'],
      ['Cells', `${status.cells.active} active, ${status.cells.included} included in the plan`],
    ]),
  );
}

/** The intents the form offers now ([value, label]); the first is chosen by default. */
function intentChoices(view: BillingView): [string, string][] {
  const { status } = view;
  return [
    ...(status.amount_due_usd > 0
      ? [['reinstate', `Pay the amount due: ${dollarsOfNumber(status.amount_due_usd)}`] as [string, string]]
      : []),
    ...(status.state === 'inactive' ? view.tiers : []).map((tier): [string, string] => [
      `setup:${tier.name}`,
      `Start the ${capitalized(tier.name)} plan: ${tierTerms(tier, 'for the first month')}`,
    ]),
    ['top_up', 'Add funds to the prepaid balance (messages are paid from it)'],
  ];
}

/** A rail's button and what it does, or why this deployment offers none. */
function railOption(view: BillingView, rail: Rail): Html {
  const offered = view.options.rails.includes(rail);
  if (rail === 'card_processor') {
    // With the card processor off (CELLGATE_CARD_PROCESSOR=off) there is no card button.
    if (!offered)
      return html`<div class="rail">${stateTag('idle', 'Card: not offered')}<p class="small">Card payments are not offered on this deployment.</p></div>`;
    const card = view.stripe
      ? 'Opens Stripe Checkout.'
      : 'Opens the built-in card page of this deployment (a development processor: no card is charged).';
    return html`<div class="rail"><button type="submit" name="rail" value="card_processor" class="primary">Pay by card</button>
<p class="small">${card}</p></div>`;
  }
  const name = RAIL_NAMES[rail];
  const what =
    rail === 'x402'
      ? `USDC on ${view.options.x402?.networks.map(capitalized).join(' or ') ?? 'Base or Solana'}`
      : `a stablecoin over the Machine Payments Protocol${view.options.mpp ? ` (${view.options.mpp.methods.join(', ')})` : ''}`;
  if (!offered)
    return html`<div class="rail">${stateTag('idle', `${name}: not configured`)}<p class="small">Paying with ${what} is not configured on this deployment.</p></div>`;
  return html`<div class="rail"><button type="submit" name="rail" value="${rail}" class="secondary">Show ${name} payment details</button>
<p class="small">How an agent pays with ${what}: the amount and the REST call (<code>POST /v1/billing/${rail}/pay</code>).</p></div>`;
}

/** One form: the intent, the amount (used by a top-up only, so not marked required), a button per rail. */
function paySection(context: SignedInContext, view: BillingView, form: PayForm): Html {
  if (!view.enabled) return html``;
  const choices = intentChoices(view);
  const chosen = choices.some(([value]) => value === form.intent) ? form.intent : choices[0][0];
  const error = form.errors?.intent;
  // One thing to pay for is said, not offered as a one-option radio group.
  const intent =
    choices.length === 1
      ? html`<p class="field" id="intent-only"${error ? html` aria-describedby="intent-error"` : ''}>
<strong>What to pay for:</strong> ${choices[0][1]}${hidden('intent', choices[0][0])}
</p>
${error && html`<p class="field-error" id="intent-error">${error}</p>`}`
      : choiceGroup(
          { id: 'intent', legend: 'What to pay for', error, type: 'radio' },
          choices.map(([value, label]) => ({ name: 'intent', value, checked: value === chosen, label })),
        );
  const rails = join(
    RAILS.map((rail) => railOption(view, rail)),
    '\n',
  );
  return section(
    'pay',
    'Pay',
    html`<form method="post" action="${context.path}/billing/pay" novalidate>
${csrfField(context)}
${form.back && hidden('return', form.back)}
${intent}
${field({ id: 'amount', name: 'amount_usd', label: 'Amount to add, in US dollars', type: 'text', value: form.amount, hint: `For adding funds, or with a plan's first month as a starting balance (optional there): at least ${dollarsOfNumber(view.options.min_amount_usd ?? 0)}, like 25 or 12.50.`, error: form.errors?.amount_usd, optional: true, attributes: html`inputmode="decimal" autocomplete="off" maxlength="16" class="amount-input"` })}
${fieldset({ id: 'rail', legend: 'Pay with', error: form.errors?.rail, className: 'rails' }, rails)}
</form>`,
  );
}

const code = (text: string) => html`<code>${text}</code>`;

/** How an agent pays over x402: the requests, and where the USDC goes. */
function x402Steps(view: BillingView, { details }: ShownPayment, json: string, amount: string): Html {
  const quotes = dataTable({
    caption: "Where the USDC goes (the seller address, never the agent's wallet)",
    columns: [
      { label: 'Network', value: (q) => capitalized(q.network) },
      { label: 'Chain', className: 'mono', value: (q) => q.caip2_network },
      { label: 'Pay to', className: 'mono', value: (q) => q.pay_to },
      { label: 'Token', className: 'mono', value: (q) => `${q.asset} ${q.contract ?? q.mint ?? ''}` },
    ],
    rows: details.x402?.quotes ?? [],
    empty: '',
  });
  return html`<ol>
<li>${code(`POST ${view.apiBase}/billing/x402/pay`)} with the key as bearer and the body ${code(json)}: the answer is 402 with a ${code('PAYMENT-REQUIRED')} header.</li>
<li>The agent's x402 client signs a USDC payment of exactly ${amount} and repeats the request with ${code('PAYMENT-SIGNATURE')}: the answer is 200 with ${code('PAYMENT-RESPONSE')}, and the payment is credited once.</li>
</ol>
${quotes}
<p class="small">An agent can also send USDC to the address above from a wallet it registered (${code('POST /v1/billing/x402/wallets')}) and then verified by signing its message (${code('POST /v1/billing/x402/wallets/{wallet_id}/verify')}). Only deposits from a verified wallet are credited to this organization; a registered wallet stays unverified until then, and its deposits are held for the operator.</p>`;
}

/** How an agent pays over MPP: the requests, and the realm, methods and discovery document. */
function mppSteps(view: BillingView, { details }: ShownPayment, json: string): Html {
  const mpp = details.mpp;
  return html`<ol>
<li>${code(`POST ${mpp?.pay_url ?? `${view.apiBase}/billing/mpp/pay`}`)} with the key as bearer and the body ${code(json)}: the answer is 402 with a ${code('WWW-Authenticate: Payment')} challenge per method.</li>
<li>The agent's MPP client pays the challenge and repeats the request with ${code('Authorization: Payment <credential>')}: the answer is 200 with ${code('Payment-Receipt')}, and the payment is credited once.</li>
</ol>
${facts([
  ['Realm', html`<span class="mono">${mpp?.realm}</span>`],
  ['Methods', mpp?.methods.join(', ')],
  ['Discovery', html`<span class="mono">${mpp?.discovery_url}</span>`],
])}`;
}

function shownPayment(view: BillingView, shown: ShownPayment): Html {
  const { details } = shown;
  const json = JSON.stringify(shown.body);
  const amount = dollars(details.amount_usd);
  return html`<section id="payment-details" class="payment-details" aria-labelledby="payment-details-heading">
<h2 id="payment-details-heading">Pay ${amount} over ${RAIL_NAMES[shown.rail]}</h2>
<p role="status">An agent pays ${amount} for ${code(details.intent)}${details.tier ? ` (the ${capitalized(details.tier)} plan)` : ''} with its API key, in two requests:</p>
${shown.rail === 'x402' ? x402Steps(view, shown, json, amount) : mppSteps(view, shown, json)}
</section>`;
}

/** The usage summary's lines: [term, type, what a unit of it is]. */
const USAGE_LINES = [
  ['SMS', 'sms', 'segment'],
  ['MMS', 'mms', 'message'],
  ['Cells', 'cell_month', 'cell-month'],
] as const;

function usageSection(view: BillingView): Html {
  const byType = Object.fromEntries(view.summary.by_type.map((t) => [t.type, t]));
  const lines = USAGE_LINES.map(([term, type, unit]): [string, string] => [
    term,
    `${plural(byType[type]?.quantity ?? 0, unit)}, ${dollars(byType[type]?.amount_usd ?? '0.00')}`,
  ]);
  return section(
    'usage',
    `Usage in ${monthName(view.month)}`,
    html`${facts([['Total', html`<strong>${dollars(view.summary.amount_usd)}</strong>`], ...lines])}
${usageChart('usage-chart', view.month, view.days) ?? html`<p>No usage yet this month.</p>`}
${usageTable(view.month, view.days)}`,
  );
}

const CHECKOUT_NOTICES: Record<string, Parameters<typeof notice>> = {
  succeeded: [
    'ok',
    'Payment sent to Stripe. It is credited when Stripe confirms it, usually within seconds: reload this page to see it.',
  ],
  canceled: ['info', 'Checkout canceled: nothing was charged.'],
};

export function billingPage(
  context: SignedInContext,
  view: BillingView,
  options: { form?: PayForm; shown?: ShownPayment; checkout?: string } = {},
): Html {
  const back =
    options.checkout && Object.hasOwn(CHECKOUT_NOTICES, options.checkout) && CHECKOUT_NOTICES[options.checkout];
  return sectionPage(
    context,
    options.form?.errors ? 'Error: Billing' : 'Billing',
    html`<h1>Billing</h1>
${back && notice(...back)}
${statusSection(view)}
${options.shown && shownPayment(view, options.shown)}
${paySection(context, view, options.form ?? {})}
${usageSection(view)}`,
  );
}
