import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, useApp, verifiedOrganization, type TestApp } from '../../../../test/harness.ts';
import { BASE_PAY_TO } from '../../../../test/support/billing.ts';
import { deposit, SECRET, STRANGER } from '../../../../test/support/deposits.ts';
import { usageOnDays } from '../../../../test/support/console-account.ts';
import {
  getOperatorPage,
  postOperatorForm,
  signInOperator,
  type OperatorSignIn,
} from '../../../../test/support/console-operator.ts';
import { page } from '../../../../test/support/page.ts';

/** The month of the test's clock in words ("November 2026"): the page shows the current month. */
const monthOf = (t: TestApp) =>
  t.clock.now().toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

describe('operator console: organizations and deposits', () => {
  const t = useApp({ env: { CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO, CELLGATE_X402_DEPOSIT_SECRET: SECRET } });
  let operator: OperatorSignIn;
  let org: Org;
  const billing = async () =>
    (await t.app.inject({ url: `/v1/admin/organizations/${org.organizationId}`, headers: admin })).json().billing;
  const orgPath = () => `/console/operator/organizations/${org.organizationId}`;

  before(async () => {
    org = await verifiedOrganization(t);
    operator = await signInOperator(t);
  });

  it('lists organizations with state, tier, balance and cells, filtered by state', async () => {
    const response = await getOperatorPage(t, '/console/operator/organizations', operator);
    assert.equal(response.statusCode, 200, response.body);
    const row = page(response).row('Organizations, newest first, with their billing', new RegExp(org.email));
    assert.deepEqual(
      [row['Billing state'], row.Tier, row.Balance, row['Active cells']],
      ['• inactive', 'None', '$0.00', '0'],
    );
    const response2 = await getOperatorPage(t, '/console/operator/organizations?state=active', operator);
    assert.equal(response2.statusCode, 200);
    const active = page(response2);
    assert.equal(active.queryByText(org.email), null);
    assert.equal(active.valueOf('Billing state'), 'active');
  });

  it('credits the balance with a reason: a redirect with a notice, the ledger entry on the page', async () => {
    const credited = await postOperatorForm(t, `${orgPath()}/credits`, operator, {
      amount_usd: '25.50',
      reason: 'Goodwill after the outage',
    });
    assert.equal(credited.statusCode, 303, credited.body);
    assert.equal(credited.headers.location, `${orgPath()}?notice=credits`);
    assert.equal((await billing()).prepaid_balance_usd, 25.5);
    const response = await getOperatorPage(t, String(credited.headers.location), operator);
    assert.equal(response.statusCode, 200);
    const shown = page(response);
    shown.getByText('Credited: the balance and the ledger show it.');
    const [entry] = shown.rows('Latest ledger entries, newest first');
    assert.deepEqual(entry.slice(1, 4), ['operator credit', '$25.50', 'Goodwill after the outage']);
    assert.equal(shown.definition('Prepaid balance'), '$25.50');
    shown.section(`Usage in ${monthOf(t)}`);
  });

  it('grants months at a tier, suspends and reinstates, each with a reason', async () => {
    const granted = await postOperatorForm(t, `${orgPath()}/grant`, operator, {
      tier: 'pro',
      months: '2',
      reason: 'Pilot customer',
    });
    assert.equal(granted.statusCode, 303, granted.body);
    assert.deepEqual([(await billing()).state, (await billing()).tier], ['active', 'pro']);
    const suspended = await postOperatorForm(t, `${orgPath()}/suspend`, operator, { reason: 'Spam complaints' });
    assert.equal(suspended.statusCode, 303, suspended.body);
    assert.equal((await billing()).state, 'suspended');
    const reinstated = await postOperatorForm(t, `${orgPath()}/reinstate`, operator, { reason: 'Resolved' });
    assert.equal(reinstated.statusCode, 303, reinstated.body);
    assert.equal((await billing()).state, 'active');
    const shown = page(await getOperatorPage(t, `${orgPath()}?notice=reinstate`, operator));
    shown.getByText(/Reinstated\./);
    const ledger = shown.rows('Latest ledger entries, newest first').map((entry) => entry.slice(1, 4));
    assert.deepEqual(ledger[0], [
      'operator grant',
      '$0.00',
      'pro for 2 month(s) granted by the operator: Pilot customer',
    ]);

    const response = await getOperatorPage(t, `/console/operator/audit?target_id=${org.organizationId}`, operator);
    assert.equal(response.statusCode, 200);
    const audit = page(response).rows('Operator actions, newest first');
    assert.deepEqual(
      audit.map((entry) => entry[2]),
      ['organization.reinstate', 'organization.suspend', 'organization.grant', 'organization.credit'],
    );
    assert.equal(audit[1][4], 'Spam complaints');
    assert.equal(audit[2][5], 'tier: pro months: 2');
  });

  it("shows the organization's usage this month as a chart with its table", async () => {
    await usageOnDays(t, org.organizationId, [1, 3]);
    const usage = page(await getOperatorPage(t, orgPath(), operator)).section(`Usage in ${monthOf(t)}`);
    const chart = usage.getByRole('img', { name: new RegExp(`^Usage per day in ${monthOf(t)}, in US dollars `) });
    assert.equal(usage.within(chart).getAllByText(/^\w+ \d+: \$/).length, 2, 'a bar per day');
    assert.equal(usage.rows(`Usage by day in ${monthOf(t)} (days with usage only)`).length, 2);
  });

  it('assigns a held deposit to an organization, which is credited', async () => {
    const held = await deposit(t, { from: STRANGER, amount: '5000000' });
    assert.equal(held.statusCode, 201, held.body);
    const response = await getOperatorPage(t, '/console/operator/deposits', operator);
    assert.equal(response.statusCode, 200, response.body);
    const deposits = page(response);
    deposits.getByRole('rowheader', { name: held.json().id });
    deposits.getByRole('textbox', { name: `Organization id for ${held.json().id}` });
    const before = (await billing()).prepaid_balance_usd;
    const assigned = await postOperatorForm(t, `/console/operator/deposits/${held.json().id}/assign`, operator, {
      organization_id: org.organizationId,
      reason: 'Customer sent from a new wallet',
    });
    assert.equal(assigned.statusCode, 303, assigned.body);
    assert.equal(assigned.headers.location, '/console/operator/deposits?notice=assigned');
    assert.equal((await billing()).prepaid_balance_usd, before + 5);
    const heldNow = page(await getOperatorPage(t, '/console/operator/deposits', operator));
    assert.equal(heldNow.queryByRole('rowheader', { name: held.json().id }), null);
    const credited = page(await getOperatorPage(t, '/console/operator/deposits?status=credited', operator));
    const row = credited.row('Credited deposits, newest first', held.json().id);
    assert.equal(row.Organization, org.organizationId);
    assert.equal(credited.href(org.organizationId), `/console/operator/organizations/${org.organizationId}`);
    const audit = page(await getOperatorPage(t, `/console/operator/audit?target_id=${held.json().id}`, operator));
    const [entry] = audit.rows('Operator actions, newest first');
    assert.deepEqual(entry.slice(2), [
      'deposit.assign',
      `deposit ${held.json().id}`,
      'Customer sent from a new wallet',
      `organization id: ${org.organizationId}`,
    ]);
  });
});
