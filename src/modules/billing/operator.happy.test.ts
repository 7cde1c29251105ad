import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, TEST_EPOCH, useApp, verifiedOrganization } from '../../../test/harness.ts';
import { eventsOf } from '../../../test/support/cells.ts';
import { addMonths } from './service.ts';

const monthsAfterEpoch = (months: number) => addMonths(TEST_EPOCH, months).toISOString();

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

describe('operator billing actions', () => {
  let org: Org;
  const t = useApp();
  before(async () => {
    org = await verifiedOrganization(t);
  });

  const act = (action: string, payload: Record<string, unknown>, id = org.organizationId) =>
    t.app.inject({ method: 'POST', url: `/v1/admin/organizations/${id}/${action}`, headers: admin, payload });
  const status = async () =>
    (await t.app.inject({ method: 'GET', url: '/v1/billing/status', headers: org.headers })).json();

  it('credits the prepaid balance with a ledger row', async () => {
    const response = await act('credits', { amount_usd: '25.50', reason: 'goodwill' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().billing.prepaid_balance_usd, 25.5);
    await act('credits', { amount_usd: '4.5', reason: 'more' });
    assert.equal((await status()).prepaid_balance_usd, 30);
    const rows = await t.database.db
      .selectFrom('ledger_entries')
      .selectAll()
      .where('organization_id', '=', org.organizationId)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.kind, Number(r.amount_micros)]),
      [
        ['operator_credit', 25_500_000],
        ['operator_credit', 4_500_000],
      ],
    );
  });

  it('grants paid months of a tier: active until the end of the last month, a ledger row at zero, one status event', async () => {
    const response = await act('grant', { tier: 'pro', months: 2, reason: 'pilot' });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.billing.state, 'active');
    assert.equal(body.billing.tier, 'pro');
    assert.equal(body.billing.cells.included, 10);
    assert.equal(body.billing.current_period_end, monthsAfterEpoch(2));
    const grants = await t.database.db
      .selectFrom('ledger_entries')
      .selectAll()
      .where('kind', '=', 'operator_grant')
      .execute();
    assert.equal(grants.length, 1);
    assert.equal(Number(grants[0].amount_micros), 0);
    const events = await eventsOf(t, 'billing.status_changed');
    assert.equal(events.length, 1);
    assert.deepEqual(events[0].data, {
      organization_id: org.organizationId,
      state: 'active',
      previous_state: 'inactive',
      tier: 'pro',
      current_period_end: monthsAfterEpoch(2),
    });
  });

  it('shows the granted state and tier in the agent status', async () => {
    const body = (await t.app.inject({ method: 'GET', url: '/v1/agent/status', headers: org.headers })).json();
    assert.deepEqual(body.billing, { state: 'active', tier: 'pro', prepaid_balance_usd: 30, amount_due_usd: 0 });
  });

  it('extends the paid period of an active organization from its end', async () => {
    const body = (await act('grant', { tier: 'pro', months: 1, reason: 'extension' })).json();
    assert.equal(body.billing.current_period_end, addMonths(new Date(monthsAfterEpoch(2)), 1).toISOString());
    assert.equal((await eventsOf(t, 'billing.status_changed')).length, 1);
  });

  it('suspends with the amount due, then reinstates to active while the period is paid', async () => {
    const suspended = (await act('suspend', { reason: 'chargeback' })).json();
    assert.equal(suspended.billing.state, 'suspended');
    assert.equal(suspended.billing.amount_due_usd, 100);
    const reinstated = (await act('reinstate', { reason: 'resolved' })).json();
    assert.equal(reinstated.billing.state, 'active');
    assert.equal(reinstated.billing.amount_due_usd, 0);
    const events = await eventsOf(t, 'billing.status_changed');
    assert.deepEqual(
      events.slice(-2).map((e) => [e.data.previous_state, e.data.state]),
      [
        ['active', 'suspended'],
        ['suspended', 'active'],
      ],
    );
  });

  it('records every action with the admin token id and the reason', async () => {
    const actions = await t.database.db
      .selectFrom('billing_operator_actions')
      .selectAll()
      .where('organization_id', '=', org.organizationId)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      actions.map((a) => [a.action, a.reason, a.admin_token_id]),
      [
        ['credit', 'goodwill', 'adm_bootstrap'],
        ['credit', 'more', 'adm_bootstrap'],
        ['grant', 'pilot', 'adm_bootstrap'],
        ['grant', 'extension', 'adm_bootstrap'],
        ['suspend', 'chargeback', 'adm_bootstrap'],
        ['reinstate', 'resolved', 'adm_bootstrap'],
      ],
    );
  });

  it('reinstates a suspended organization whose period is over as past due', async () => {
    t.clock.advance(100 * 24 * 3600 * 1000);
    await act('suspend', { reason: 'late' });
    const body = (await act('reinstate', { reason: 'promised to pay' })).json();
    assert.equal(body.billing.state, 'past_due');
    assert.equal(body.billing.amount_due_usd, 100);
  });
});

describe('operator organization reads', () => {
  let first: Org;
  let second: Org;
  const t = useApp();
  before(async () => {
    first = await verifiedOrganization(t);
    second = await verifiedOrganization(t);
    await t.app.inject({
      method: 'POST',
      url: `/v1/admin/organizations/${second.organizationId}/grant`,
      headers: admin,
      payload: { tier: 'starter', months: 1, reason: 'x' },
    });
  });

  it('lists organizations newest first with their billing state', async () => {
    const body = (await t.app.inject({ method: 'GET', url: '/v1/admin/organizations', headers: admin })).json();
    assert.deepEqual(
      body.organizations.map((o: { id: string }) => o.id),
      [second.organizationId, first.organizationId],
    );
    assert.deepEqual(
      body.organizations.map((o: { billing_state: string }) => o.billing_state),
      ['active', 'inactive'],
    );
    assert.equal(body.next_cursor, null);
  });

  it('filters by billing state and by email', async () => {
    const active = (
      await t.app.inject({ method: 'GET', url: '/v1/admin/organizations?state=active', headers: admin })
    ).json();
    assert.deepEqual(
      active.organizations.map((o: { id: string }) => o.id),
      [second.organizationId],
    );
    const inactive = (
      await t.app.inject({ method: 'GET', url: '/v1/admin/organizations?state=inactive', headers: admin })
    ).json();
    assert.deepEqual(
      inactive.organizations.map((o: { id: string }) => o.id),
      [first.organizationId],
    );
    const byEmail = (
      await t.app.inject({
        method: 'GET',
        url: `/v1/admin/organizations?email=${encodeURIComponent(first.email.toUpperCase())}`,
        headers: admin,
      })
    ).json();
    assert.deepEqual(
      byEmail.organizations.map((o: { id: string }) => o.id),
      [first.organizationId],
    );
  });

  it('pages with a cursor', async () => {
    const page1 = (
      await t.app.inject({ method: 'GET', url: '/v1/admin/organizations?limit=1', headers: admin })
    ).json();
    assert.equal(page1.organizations.length, 1);
    const page2 = (
      await t.app.inject({
        method: 'GET',
        url: `/v1/admin/organizations?limit=1&cursor=${page1.next_cursor}`,
        headers: admin,
      })
    ).json();
    assert.deepEqual(
      page2.organizations.map((o: { id: string }) => o.id),
      [first.organizationId],
    );
  });

  it('reads one organization with its billing status and balance', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/v1/admin/organizations/${second.organizationId}`,
      headers: admin,
    });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.id, second.organizationId);
    assert.equal(body.email, second.email);
    assert.equal(body.billing.state, 'active');
    assert.equal(body.billing.tier, 'starter');
    assert.equal(body.billing.prepaid_balance_usd, 0);
  });
});
