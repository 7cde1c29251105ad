import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, verifiedOrganization } from '../../../../test/harness.ts';
import { BASE_PAY_TO } from '../../../../test/support/billing.ts';
import { mppEnv } from '../../../../test/support/mpp-rpc-double.ts';
import { page, textOf } from '../../../../test/support/page.ts';
import {
  page as get,
  pathOf,
  post,
  signedInOrganization,
  usageOnDays,
  type SignedInOrg,
} from '../../../../test/support/console-account.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
/** A date as the usage table names its day ("March 3"). */
const dayName = (date: string) =>
  new Date(`${date}T00:00:00Z`).toLocaleString('en-US', { day: 'numeric', month: 'long', timeZone: 'UTC' });

describe('console billing', () => {
  const t = useApp();
  let org: SignedInOrg;
  before(async () => {
    org = await signedInOrganization(t);
  });

  it("shows the status, the balance and the month's usage as a chart with one bar per day that has usage, and a table", async () => {
    const dates = await usageOnDays(t, org.organizationId, [1, 3, 3, 10], { before: true });
    const other = await signedInOrganization(t);
    await usageOnDays(t, other.organizationId, [2, 4, 5]);

    const response = await get(t, org, '/console/billing');
    assert.equal(response.statusCode, 200);
    const billing = page(response);
    billing.getByRole('link', { name: 'Billing', current: 'page' });
    const status = billing.section('Status');
    assert.equal(status.definition('Organization'), '✓ Active');
    assert.match(status.definition('Billing'), /^✓ Active Paid through /);
    assert.equal(status.definition('Plan'), 'Pro: $100.00 a month, 10 cells included');
    assert.match(status.definition('Period ends'), /^2\d{3}-/);
    assert.equal(status.definition('Prepaid balance'), '$1000.00');

    // Days 1, 3 (twice) and 10: three bars; the previous month and the other organization are left out.
    const usage = billing.section(/^Usage in \w+ \d{4}$/);
    const chart = usage.getByRole('img', {
      name: /^Usage per day in \w+ \d{4}, in US dollars \$0\.26 over 3 days with usage; the highest was \$0\.13 on /,
    });
    assert.equal(dates.length, 3);
    assert.equal(usage.within(chart).getAllByText(/^\w+ \d+: \$/).length, dates.length);
    const days = usage.rows(/^Usage by day in \w+ \d{4} \(days with usage only\)$/);
    assert.equal(days.length, 3);
    assert.deepEqual(days[1], [dayName(dates[1]), '7', '2', '0', '$0.13']);
    assert.equal(usage.definition('Total'), '$0.26');
    assert.equal(usage.definition('SMS'), '14 segments, $0.14');
  });

  it('says when a month has no usage yet', async () => {
    const fresh = await signedInOrganization(t);
    const usage = page(await get(t, fresh, '/console/billing')).section(/^Usage in /);
    usage.getByText('No usage yet this month.');
    assert.equal(usage.queryByRole('img'), null);
  });

  it('pays by card: the button answers 303 to a checkout that works, and the balance grows', async () => {
    const billing = await get(t, org, '/console/billing');
    const pay = page(billing).section('Pay');
    const button = pay.getByRole<HTMLButtonElement>('button', { name: 'Pay by card' });
    assert.deepEqual([button.name, button.value], ['rail', 'card_processor']);
    const form = button.form;
    assert.deepEqual(
      [form?.method, form?.getAttribute('action'), form?.noValidate],
      ['post', '/console/billing/pay', true],
    );
    // The page holding the form lets it reach the checkout's origin (Chromium checks the redirect).
    assert.match(String(billing.headers['content-security-policy']), /form-action 'self' http:\/\/cellgate\.test/);
    pay.getByText(/built-in card page/);

    const paying = await post(t, org, '/console/billing/pay', {
      intent: 'top_up',
      amount_usd: '25.50',
      rail: 'card_processor',
    });
    assert.equal(paying.statusCode, 303, paying.body);
    const location = String(paying.headers.location);
    assert.match(location, /^http:\/\/cellgate\.test\/v1\/billing\/checkout\/pay_\w+\?token=\w{32}$/);

    const checkout = await t.app.inject({ url: pathOf(location) });
    assert.equal(checkout.statusCode, 200);
    assert.equal(page(checkout).definition('For'), 'Top up $25.50');
    const paid = await t.app.inject({ method: 'POST', url: pathOf(location), headers: FORM, payload: '' });
    page(paid).getByRole('heading', { level: 1, name: 'Paid: Top up $25.50' });
    assert.equal(page(await get(t, org, '/console/billing')).definition('Prepaid balance'), '$1025.50');
  });

  it('starts a plan for an organization without one, by card', async () => {
    const fresh = await signedInOrganization(t, await verifiedOrganization(t));
    const billing = page(await get(t, fresh, '/console/billing'));
    billing.getByText('No plan yet');
    const intents = billing.within(billing.getByRole('group', { name: 'What to pay for' }));
    const starter = intents.getByRole('radio', {
      name: 'Start the Starter plan: $20.00 for the first month, 1 cell included',
      checked: true,
    });
    assert.equal(starter.getAttribute('value'), 'setup:starter');
    assert.equal(intents.getByRole('radio', { name: /^Start the Pro plan: / }).getAttribute('value'), 'setup:pro');
    const paying = await post(t, fresh, '/console/billing/pay', {
      intent: 'setup:starter',
      amount_usd: '',
      rail: 'card_processor',
    });
    assert.equal(paying.statusCode, 303, paying.body);
    await t.app.inject({ method: 'POST', url: pathOf(String(paying.headers.location)), headers: FORM, payload: '' });
    const after = page(await get(t, fresh, '/console/billing'));
    assert.equal(after.definition('Plan'), 'Starter: $20.00 a month, 1 cell included');
    assert.equal(after.queryByRole('radio', { name: /^Start the Starter plan/ }), null, 'no second setup');
  });

  it('starts a plan with a starting balance, by card: one payment, the rest on the balance', async () => {
    const fresh = await signedInOrganization(t, await verifiedOrganization(t));
    const paying = await post(t, fresh, '/console/billing/pay', {
      intent: 'setup:starter',
      amount_usd: '25',
      rail: 'card_processor',
    });
    assert.equal(paying.statusCode, 303, paying.body);
    const checkout = await t.app.inject({ url: pathOf(String(paying.headers.location)) });
    page(checkout).getAllByText(/\$45\.00/);
    await t.app.inject({ method: 'POST', url: pathOf(String(paying.headers.location)), headers: FORM, payload: '' });
    const after = page(await get(t, fresh, '/console/billing'));
    assert.equal(after.definition('Plan'), 'Starter: $20.00 a month, 1 cell included');
    assert.equal(after.definition('Prepaid balance'), '$25.00');
  });

  it('says the one thing to pay for instead of offering a one-option radio group', async () => {
    const pay = page(await get(t, org, '/console/billing')).section('Pay');
    assert.deepEqual(pay.queryAllByRole('radio'), []);
    const only = pay.getByText('What to pay for:').parentElement;
    assert.equal(textOf(only), 'What to pay for: Add funds to the prepaid balance (messages are paid from it)');
    const intent = only?.querySelector('input[type="hidden"][name="intent"]');
    assert.equal(intent?.getAttribute('value'), 'top_up', 'the form still posts the intent');
  });

  it('says x402 and MPP are not configured here, with no button for them', async () => {
    const rails = page(await get(t, org, '/console/billing')).section('Pay');
    const x402 = rails.getByText('x402: not configured').closest('div');
    assert.equal(
      textOf(x402),
      '• x402: not configured Paying with USDC on Base or Solana is not configured on this deployment.',
    );
    rails.getByText('MPP: not configured');
    assert.deepEqual(
      rails.getAllByRole('button').map((button) => button.textContent),
      ['Pay by card'],
    );
  });
});

describe('console billing with x402 and MPP configured', () => {
  const t = useApp({ env: { CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO, ...mppEnv('http://127.0.0.1:9') } });
  let org: SignedInOrg;
  before(async () => {
    org = await signedInOrganization(t);
  });

  it('shows how an agent pays the chosen intent over x402: the amount, the REST call and where the USDC goes', async () => {
    const form = page(await get(t, org, '/console/billing'));
    const button = form.getByRole('button', { name: 'Show x402 payment details' });
    assert.deepEqual([button.getAttribute('name'), button.getAttribute('value')], ['rail', 'x402']);
    const shown = await post(t, org, '/console/billing/pay', { intent: 'top_up', amount_usd: '40', rail: 'x402' });
    assert.equal(shown.statusCode, 200, shown.body);
    const billing = page(shown);
    const details = billing.section('Pay $40.00 over x402');
    assert.match(
      details.text(),
      /POST http:\/\/cellgate\.test\/v1\/billing\/x402\/pay with the key as bearer and the body \{"intent":"top_up","amount_usd":"40"\}:/,
    );
    details.getByText('PAYMENT-SIGNATURE');
    assert.deepEqual(details.rows(/^Where the USDC goes/)[0].slice(1, 3), ['eip155:8453', BASE_PAY_TO]);
    // Contract §7: a registered wallet is unverified until it signs; only verified wallets are credited.
    const wallets = textOf(details.getByText(/^An agent can also send USDC/));
    assert.match(wallets, /from a wallet it registered \(POST \/v1\/billing\/x402\/wallets\) and then verified/);
    assert.match(wallets, /Only deposits from a verified wallet are credited to this organization/);
    assert.match(wallets, /its deposits are held for the operator/);
    assert.equal(billing.valueOf('Amount to add, in US dollars'), '40', 'the form keeps the amount');
  });

  it('shows how an agent pays over MPP: the pay URL, realm and methods', async () => {
    const shown = await post(t, org, '/console/billing/pay', { intent: 'top_up', amount_usd: '12.50', rail: 'mpp' });
    assert.equal(shown.statusCode, 200, shown.body);
    const details = page(shown).section('Pay $12.50 over MPP');
    details.getByText('POST http://cellgate.test/v1/billing/mpp/pay');
    assert.equal(details.definition('Realm'), 'cellgate.test');
    assert.equal(details.definition('Methods'), 'tempo');
  });
});

describe('console billing with the card processor off', () => {
  const t = useApp({ env: { CELLGATE_CARD_PROCESSOR: 'off', CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO } });
  let org: SignedInOrg;
  before(async () => {
    org = await signedInOrganization(t);
  });

  it('offers no card button and says card payments are not offered here, keeping the other rails', async () => {
    const response = await get(t, org, '/console/billing');
    assert.doesNotMatch(response.body, /value="card_processor"/);
    const rails = page(response).section('Pay');
    assert.doesNotMatch(rails.text(), /Pay by card|card page|Stripe Checkout/);
    const card = rails.getByText('Card: not offered').closest('div');
    assert.equal(textOf(card), '• Card: not offered Card payments are not offered on this deployment.');
    assert.deepEqual(
      rails.getAllByRole('button').map((button) => button.textContent),
      ['Show x402 payment details'],
    );
  });

  it('refuses a forged card post with the form and its reason, starting no payment', async () => {
    const paying = await post(t, org, '/console/billing/pay', {
      intent: 'top_up',
      amount_usd: '25',
      rail: 'card_processor',
    });
    assert.equal(paying.statusCode, 400, paying.body);
    const refused = page(paying);
    refused.getByText('Card payment is not configured on this deployment.');
    assert.equal(refused.queryByRole('button', { name: 'Pay by card' }), null);
    const payments = await t.database.db
      .selectFrom('payments')
      .select('id')
      .where('organization_id', '=', org.organizationId)
      .execute();
    assert.deepEqual(payments, []);
  });
});
