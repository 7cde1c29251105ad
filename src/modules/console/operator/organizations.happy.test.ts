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
  textOf,
  type OperatorSignIn,
} from '../../../../test/support/console-operator.ts';

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
    const page = await getOperatorPage(t, '/console/operator/organizations', operator);
    assert.equal(page.statusCode, 200, page.body);
    const words = textOf(page.body);
    assert.match(words, new RegExp(org.email));
    assert.match(words, /inactive/);
    assert.match(words, /\$0\.00/);
    const active = await getOperatorPage(t, '/console/operator/organizations?state=active', operator);
    assert.equal(active.statusCode, 200);
    assert.doesNotMatch(active.body, new RegExp(org.email));
    assert.match(active.body, /<option value="active" selected>/);
  });

  it('credits the balance with a reason: a redirect with a notice, the ledger entry on the page', async () => {
    const credited = await postOperatorForm(t, `${orgPath()}/credits`, operator, {
      amount_usd: '25.50',
      reason: 'Goodwill after the outage',
    });
    assert.equal(credited.statusCode, 303, credited.body);
    assert.equal(credited.headers.location, `${orgPath()}?notice=credits`);
    assert.equal((await billing()).prepaid_balance_usd, 25.5);
    const page = await getOperatorPage(t, String(credited.headers.location), operator);
    assert.equal(page.statusCode, 200);
    const words = textOf(page.body);
    assert.match(words, /Credited: the balance and the ledger show it\./);
    assert.match(words, /operator credit \$25\.50 Goodwill after the outage/);
    assert.match(words, /Prepaid balance \$25\.50/);
    assert.ok(words.includes(`Usage in ${monthOf(t)}`), words);
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
    const page = await getOperatorPage(t, `${orgPath()}?notice=reinstate`, operator);
    assert.match(textOf(page.body), /Reinstated\./);
    assert.match(
      textOf(page.body),
      /operator grant \$0\.00 pro for 2 month\(s\) granted by the operator: Pilot customer/,
    );

    const audit = await getOperatorPage(t, `/console/operator/audit?target_id=${org.organizationId}`, operator);
    assert.equal(audit.statusCode, 200);
    const actions = [...audit.body.matchAll(/<span class="tag mono">([^<]+)<\/span>/g)].map((m) => m[1]);
    assert.deepEqual(actions, [
      'organization.reinstate',
      'organization.suspend',
      'organization.grant',
      'organization.credit',
    ]);
    assert.match(textOf(audit.body), /Spam complaints/);
    assert.match(textOf(audit.body), /tier: pro months: 2/);
  });

  it("shows the organization's usage this month as a chart with its table", async () => {
    await usageOnDays(t, org.organizationId, [1, 3]);
    const page = await getOperatorPage(t, orgPath(), operator);
    assert.match(page.body, /<svg role="img" aria-labelledby="usage-chart-title usage-chart-desc"/);
    assert.equal(page.body.match(/<rect class="bar"/g)?.length, 2);
    assert.ok(page.body.includes(`<caption>Usage by day in ${monthOf(t)} (days with usage only)</caption>`));
  });

  it('assigns a held deposit to an organization, which is credited', async () => {
    const held = await deposit(t, { from: STRANGER, amount: '5000000' });
    assert.equal(held.statusCode, 201, held.body);
    const page = await getOperatorPage(t, '/console/operator/deposits', operator);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, new RegExp(held.json().id));
    assert.match(page.body, /<label for="assign-[^"]+">Organization id for /);
    const before = (await billing()).prepaid_balance_usd;
    const assigned = await postOperatorForm(t, `/console/operator/deposits/${held.json().id}/assign`, operator, {
      organization_id: org.organizationId,
      reason: 'Customer sent from a new wallet',
    });
    assert.equal(assigned.statusCode, 303, assigned.body);
    assert.equal(assigned.headers.location, '/console/operator/deposits?notice=assigned');
    assert.equal((await billing()).prepaid_balance_usd, before + 5);
    const heldNow = await getOperatorPage(t, '/console/operator/deposits', operator);
    assert.doesNotMatch(heldNow.body, new RegExp(held.json().id));
    const credited = await getOperatorPage(t, '/console/operator/deposits?status=credited', operator);
    assert.match(credited.body, new RegExp(held.json().id));
    assert.match(credited.body, new RegExp(`href="/console/operator/organizations/${org.organizationId}"`));
    const audit = await getOperatorPage(t, `/console/operator/audit?target_id=${held.json().id}`, operator);
    assert.match(
      textOf(audit.body),
      /deposit\.assign deposit dep_\w+ Customer sent from a new wallet organization id: org_\w+/,
    );
  });
});
