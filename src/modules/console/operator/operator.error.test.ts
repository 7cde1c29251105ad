import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, useApp, verifiedOrganization } from '../../../../test/harness.ts';
import { BASE_PAY_TO } from '../../../../test/support/billing.ts';
import { deposit, SECRET, STRANGER } from '../../../../test/support/deposits.ts';
import { addDevice } from '../../../../test/support/devices.ts';
import {
  getOperatorPage,
  postOperatorForm,
  signInOperator,
  type OperatorSignIn,
} from '../../../../test/support/console-operator.ts';
import { descriptionOf, page } from '../../../../test/support/page.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

describe('operator console: bad input', () => {
  const t = useApp({ env: { CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO, CELLGATE_X402_DEPOSIT_SECRET: SECRET } });
  let operator: OperatorSignIn;
  let org: Org;
  const orgPath = () => `/console/operator/organizations/${org.organizationId}`;
  const balance = async () =>
    (await t.app.inject({ url: `/v1/admin/organizations/${org.organizationId}`, headers: admin })).json().billing
      .prepaid_balance_usd;

  before(async () => {
    org = await verifiedOrganization(t);
    operator = await signInOperator(t);
  });

  /**
   * Posts the form and expects a 400 page whose field `id` is invalid and announces `message` with
   * it (its description); the field, for what it kept.
   */
  async function fieldError(form: string, fields: Record<string, string>, id: string, message: RegExp) {
    const response = await postOperatorForm(t, `${orgPath()}/${form}`, operator, fields);
    assert.equal(response.statusCode, 400, `${form} ${JSON.stringify(fields)}: ${response.body.slice(0, 200)}`);
    const refused = page(response);
    assert.match(refused.document.title, /^Error: /);
    const field = refused.document.getElementById(id) as HTMLInputElement | null;
    assert.equal(field?.getAttribute('aria-invalid'), 'true', `${id} is marked invalid`);
    assert.match(descriptionOf(field), message);
    return field;
  }

  it('refuses negative, zero, over-precise, non-numeric and missing credit amounts, keeping what was typed', async () => {
    for (const amount of ['-5.00', '0', '0.00', '1.234', 'ten', '1e3']) {
      const field = await fieldError(
        'credits',
        { amount_usd: amount, reason: 'Goodwill' },
        'credits-amount',
        /amount/i,
      );
      assert.equal(field?.value, amount);
    }
    await fieldError('credits', { amount_usd: '', reason: 'Goodwill' }, 'credits-amount', /Enter an amount/);
    await fieldError('credits', { amount_usd: '100000000.00', reason: 'Goodwill' }, 'credits-amount', /at most/);
    assert.equal(await balance(), 0, 'nothing was credited');
  });

  it('refuses an empty or too long reason on every form', async () => {
    for (const form of ['credits', 'grant', 'suspend', 'reinstate']) {
      const fields = { amount_usd: '5.00', tier: 'pro', months: '1' };
      await fieldError(form, { ...fields, reason: '' }, `${form}-reason`, /Enter a reason/);
      await fieldError(form, { ...fields, reason: '   ' }, `${form}-reason`, /Enter a reason/);
      await fieldError(form, { ...fields, reason: 'x'.repeat(501) }, `${form}-reason`, /at most 500 characters/);
    }
    assert.equal(await balance(), 0);
  });

  it('refuses an unknown tier and months outside 1-120', async () => {
    await fieldError(
      'grant',
      { tier: 'platinum', months: '1', reason: 'Pilot' },
      'grant-tier',
      /must be one of: starter, pro/,
    );
    for (const months of ['0', '121', 'two', '1.5', '-1', ''])
      await fieldError('grant', { tier: 'pro', months, reason: 'Pilot' }, 'grant-months', /1 to 120/);
    const state = (await t.app.inject({ url: `/v1/admin/organizations/${org.organizationId}`, headers: admin })).json();
    assert.equal(state.billing.tier, null, 'nothing was granted');
  });

  it('says a refused action (409) above its form: reinstating an organization that owes nothing, suspending twice', async () => {
    const reinstate = await postOperatorForm(t, `${orgPath()}/reinstate`, operator, { reason: 'Why not' });
    assert.equal(reinstate.statusCode, 409);
    assert.equal(
      page(reinstate).getByRole('alert').textContent,
      'Only a suspended or past-due organization can be reinstated.',
    );
    assert.equal((await postOperatorForm(t, `${orgPath()}/suspend`, operator, { reason: 'Abuse' })).statusCode, 303);
    const again = await postOperatorForm(t, `${orgPath()}/suspend`, operator, { reason: 'Abuse' });
    assert.equal(again.statusCode, 409);
    page(again).getByText('The organization is already suspended.');
  });

  it('answers 404 for an unknown organization, phone or deposit, and 400 for a bad filter or list link', async () => {
    assert.equal((await getOperatorPage(t, '/console/operator/organizations/org_nope', operator)).statusCode, 404);
    assert.equal((await getOperatorPage(t, '/console/operator/organizations/not%20an%20id', operator)).statusCode, 404);
    assert.equal(
      (await postOperatorForm(t, '/console/operator/organizations/org_nope/suspend', operator, { reason: 'x' }))
        .statusCode,
      404,
    );
    assert.equal((await getOperatorPage(t, '/console/operator/devices/dev_nope', operator)).statusCode, 404);
    assert.equal((await getOperatorPage(t, '/console/operator/devices/%3Cscript%3E', operator)).statusCode, 404);
    assert.equal(
      (await postOperatorForm(t, '/console/operator/devices/dev_nope/rotate-key', operator)).statusCode,
      404,
    );
    assert.equal((await getOperatorPage(t, '/console/operator/fleet?filter=broken', operator)).statusCode, 400);
    assert.equal((await getOperatorPage(t, '/console/operator/organizations?state=gone', operator)).statusCode, 400);
    assert.equal((await getOperatorPage(t, '/console/operator/organizations?cursor=%21%21', operator)).statusCode, 400);
    assert.equal((await getOperatorPage(t, '/console/operator/deposits?status=lost', operator)).statusCode, 400);
    assert.equal((await getOperatorPage(t, '/console/operator/deposits?cursor=%21%21', operator)).statusCode, 400);
    assert.equal((await getOperatorPage(t, '/console/operator/audit?cursor=%21%21', operator)).statusCode, 400);
    assert.equal((await getOperatorPage(t, '/console/operator/audit?target_id=%3Cb%3E', operator)).statusCode, 400);
    assert.equal(
      (
        await postOperatorForm(t, '/console/operator/deposits/dep_nope/assign', operator, {
          organization_id: org.organizationId,
        })
      ).statusCode,
      404,
    );
  });

  it('refuses assigning a deposit to no, a malformed or an unknown organization, and one already credited', async () => {
    const held = (await deposit(t, { from: STRANGER, amount: '5000000' })).json();
    const url = `/console/operator/deposits/${held.id}/assign`;
    for (const [organizationId, message] of [
      ['', /Enter the id of the organization/],
      ['org with spaces', /looks like org_/],
      ['org_unknown', /No organization has this id/],
    ] as const) {
      const response = await postOperatorForm(t, url, operator, { organization_id: organizationId });
      assert.equal(response.statusCode, 400, organizationId);
      const field = page(response).getByRole('textbox', { name: /^Organization id for / });
      assert.equal(field.getAttribute('aria-invalid'), 'true');
      assert.match(descriptionOf(field), message);
    }
    const long = await postOperatorForm(t, url, operator, {
      organization_id: org.organizationId,
      reason: 'r'.repeat(501),
    });
    assert.equal(long.statusCode, 400);
    const reason = page(long).getByRole('textbox', {
      name: /^Reason/,
      description: /The reason is at most 500 characters\./,
    });
    assert.equal(reason.getAttribute('aria-invalid'), 'true');
    assert.equal((await postOperatorForm(t, url, operator, { organization_id: org.organizationId })).statusCode, 303);
    const twice = await postOperatorForm(t, url, operator, { organization_id: org.organizationId });
    assert.equal(twice.statusCode, 409);
    page(twice).getByText(/already credited/);
  });

  it('refuses a rotation reason over 500 characters on the form, and keeps the key', async () => {
    const phone = await addDevice(t);
    const response = await postOperatorForm(t, `/console/operator/devices/${phone.id}/rotate-key`, operator, {
      reason: 'r'.repeat(501),
    });
    assert.equal(response.statusCode, 400);
    const refused = page(response);
    assert.match(refused.document.title, /^Error: Phone /);
    const reason = refused.document.getElementById('rotate-key-reason');
    assert.equal(descriptionOf(reason), 'The reason is at most 500 characters.');
    assert.doesNotMatch(response.body, /cg_dev_/);
    const heartbeat = await t.app.inject({
      method: 'POST',
      url: '/v1/device/heartbeat',
      headers: phone.headers,
      payload: {},
    });
    assert.equal(heartbeat.statusCode, 200);
  });

  it('refuses pausing, resuming or releasing without a reason, and says why an action is refused (409)', async () => {
    const phone = await addDevice(t);
    const base = `/console/operator/devices/${phone.id}`;
    for (const action of ['pause', 'resume', 'release']) {
      const empty = await postOperatorForm(t, `${base}/${action}`, operator, { reason: '  ' });
      assert.equal(empty.statusCode, 400, action);
      const reason = page(empty).document.getElementById(`${action}-reason`);
      assert.match(descriptionOf(reason), /^Enter a reason/);
    }
    const resume = await postOperatorForm(t, `${base}/resume`, operator, { reason: 'Why not' });
    assert.equal(resume.statusCode, 409);
    assert.equal(page(resume).getByRole('alert').textContent, 'The device is not paused.');
    const release = await postOperatorForm(t, `${base}/release`, operator, { reason: 'Why not' });
    assert.equal(release.statusCode, 409);
    page(release).getByText(/only a quarantined or degraded device is released/);
    assert.equal((await postOperatorForm(t, `${base}/pause`, operator, { reason: 'Night' })).statusCode, 303);
    const twice = await postOperatorForm(t, `${base}/pause`, operator, { reason: 'Night' });
    assert.equal(twice.statusCode, 409);
    page(twice).getByText(/The device is already paused\./);
    assert.equal(
      (await postOperatorForm(t, '/console/operator/devices/dev_nope/pause', operator, { reason: 'x' })).statusCode,
      404,
    );
  });

  it('refuses a repeated form field', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: `${orgPath()}/suspend`,
      headers: { ...operator.headers, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `csrf_token=${operator.csrf}&reason=a&reason=b`,
    });
    assert.equal(response.statusCode, 400);
  });
});
