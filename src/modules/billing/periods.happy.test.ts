import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { verifiedOrganization, startApp, type TestApp, useApp } from '../../../test/harness.ts';
import { createExtraCell, credit, grant } from '../../../test/support/billing.ts';
import { createCell, eventsOf } from '../../../test/support/cells.ts';
import { addMonths, GRACE_MS } from './service.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;
const DAY = 24 * 3600 * 1000;

/** Moves the test clock forward to `at`. */
function moveTo(t: TestApp, at: Date) {
  t.clock.advance(at.getTime() - t.clock.now().getTime());
}

async function status(t: TestApp, org: Org) {
  return (await t.app.inject({ method: 'GET', url: '/v1/billing/status', headers: org.headers })).json();
}

describe('billing period ends', () => {
  const t = useApp();
  let paying: Org;
  let broke: Org;
  let firstEnd: string;
  before(async () => {
    paying = await verifiedOrganization(t);
    broke = await verifiedOrganization(t);
    firstEnd = (await grant(t, paying.organizationId)).billing.current_period_end;
    await grant(t, broke.organizationId);
    await createCell(t, paying.headers, 'One');
    await createExtraCell(t, paying.headers, 'Two');
    await credit(t, paying.organizationId, '30.00');
  });

  it('does nothing before the period end', async () => {
    t.clock.advance(DAY);
    assert.equal(await t.services.billingPeriods.tick(), 0);
  });

  it('takes the renewal (tier + extra cells) from the balance when it covers it, once, without a status event', async () => {
    moveTo(t, new Date(firstEnd));
    const eventsBefore = (await eventsOf(t, 'billing.status_changed')).length;
    assert.equal(await t.services.billingPeriods.tick(), 2);
    const paid = await status(t, paying);
    assert.equal(paid.state, 'active');
    assert.equal(paid.current_period_end, addMonths(new Date(firstEnd), 1).toISOString());
    // starter $20 + one extra cell $8, from $30
    assert.equal(paid.prepaid_balance_usd, 2);
    assert.equal(await t.services.billingPeriods.tick(), 0);
    const renewals = await t.database.db
      .selectFrom('ledger_entries')
      .selectAll()
      .where('kind', '=', 'renewal')
      .execute();
    assert.deepEqual(
      renewals.map((r) => Number(r.amount_micros)),
      [-28_000_000],
    );
    // The extra cell's month is a usage record of the renewal (the one bought at create too).
    const cellMonths = await t.database.db
      .selectFrom('usage_records')
      .select(['quantity', 'amount_micros'])
      .where('organization_id', '=', paying.organizationId)
      .where('type', '=', 'cell_month')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      cellMonths.map((u) => [u.quantity, Number(u.amount_micros)]),
      [
        [1, 8_000_000],
        [1, 8_000_000],
      ],
    );
    const changes = (await eventsOf(t, 'billing.status_changed')).slice(eventsBefore);
    assert.deepEqual(
      changes.map((e) => [e.organization_id, e.data.state]),
      [[broke.organizationId, 'past_due']],
    );
  });

  it('puts an organization the balance cannot renew past due, with the renewal due', async () => {
    const body = await status(t, broke);
    assert.equal(body.state, 'past_due');
    assert.equal(body.amount_due_usd, 20);
  });

  it('suspends it when the 7-day grace is over and the balance still cannot renew', async () => {
    moveTo(t, new Date(new Date(firstEnd).getTime() + GRACE_MS - 1));
    assert.equal(await t.services.billingPeriods.tick(), 0);
    t.clock.advance(1);
    assert.equal(await t.services.billingPeriods.tick(), 1);
    assert.equal((await status(t, broke)).state, 'suspended');
    const last = (await eventsOf(t, 'billing.status_changed')).at(-1);
    assert.deepEqual([last?.data.previous_state, last?.data.state], ['past_due', 'suspended']);
  });
});

describe('billing period ends, paid during the grace', () => {
  it('renews a past-due organization at the end of the grace when its balance covers the renewal', async () => {
    const t = await startApp();
    try {
      const org = await verifiedOrganization(t);
      const end = (await grant(t, org.organizationId)).billing.current_period_end;
      moveTo(t, new Date(end));
      await t.services.billingPeriods.tick();
      assert.equal((await status(t, org)).state, 'past_due');
      await credit(t, org.organizationId, '20.00');
      moveTo(t, new Date(new Date(end).getTime() + GRACE_MS));
      assert.equal(await t.services.billingPeriods.tick(), 1);
      const body = await status(t, org);
      assert.equal(body.state, 'active');
      assert.equal(body.prepaid_balance_usd, 0);
      assert.equal(body.current_period_end, addMonths(new Date(end), 1).toISOString());
    } finally {
      await t.close();
    }
  });

  it('charges nothing and changes nothing with billing off', async () => {
    const t = await startApp({ env: { CELLGATE_BILLING: 'off' } });
    try {
      const org = await verifiedOrganization(t);
      const end = (await grant(t, org.organizationId)).billing.current_period_end;
      await credit(t, org.organizationId, '50.00');
      moveTo(t, new Date(new Date(end).getTime() + 30 * DAY));
      assert.equal(await t.services.billingPeriods.tick(), 0);
      const body = await status(t, org);
      assert.equal(body.state, 'exempt');
      assert.equal(body.prepaid_balance_usd, 50);
    } finally {
      await t.close();
    }
  });
});
