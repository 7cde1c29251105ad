// The life of a paying organization, end to end through HTTP (issue 12's "done when"): sign-up,
// setup by card, sending until the balance runs out, a top-up, a period end it cannot renew
// (past_due), the end of the grace (suspended), paying what is due, sending again. At every step
// the ledger, the balance, usage and the billing status agree.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, useApp, verifiedOrganization } from '../../../test/harness.ts';
import { payByCard } from '../../../test/support/billing.ts';
import { eventsOf } from '../../../test/support/cells.ts';
import { activeLine, send, type Line } from '../../../test/support/messages.ts';
import { GRACE_MS } from './service.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

describe('billing walkthrough: sign-up to suspension and back', () => {
  let org: Org;
  let line: Line;
  let periodEnd: string;
  // A dollar a segment, so the balance runs out in a few sends.
  const t = useApp({ env: { CELLGATE_PRICES: JSON.stringify({ sms_segment_usd: 1 }) } });
  before(async () => {
    org = await verifiedOrganization(t);
  });

  const get = async (url: string) => (await t.app.inject({ url, headers: org.headers })).json();
  const text = (body: string) => send(t, line, { to: '+14155550100', body });

  /** Ledger sum = balance = status; debits for messages = their usage; returns the status. */
  async function agree(expected: { state: string; balance: number }) {
    const status = await get('/v1/billing/status');
    const ledger = await t.database.db
      .selectFrom('ledger_entries')
      .select(['kind', 'amount_micros'])
      .where('organization_id', '=', org.organizationId)
      .execute();
    const sum = (kinds: string[]) =>
      ledger.filter((row) => kinds.includes(row.kind)).reduce((total, row) => total + Number(row.amount_micros), 0);
    assert.equal(
      ledger.reduce((total, row) => total + Number(row.amount_micros), 0) / 1e6,
      status.prepaid_balance_usd,
      'the balance is the sum of the ledger',
    );
    const usage = await get('/v1/usage/summary?from=2000-01-01&to=2200-01-01');
    const sms = usage.by_type.find((u: { type: string }) => u.type === 'sms');
    assert.equal(
      Math.round(Number(sms.amount_usd) * 1e6),
      -(sum(['message']) + sum(['refund'])) || 0,
      'sms usage is what messages were charged',
    );
    assert.deepEqual([status.state, status.prepaid_balance_usd], [expected.state, expected.balance]);
    return status;
  }

  it('pays the setup by card, then sends while the balance lasts, then 402 top_up', async () => {
    await payByCard(t, org.headers, { intent: 'setup' });
    line = await activeLine(t, {}, org);
    periodEnd = (await agree({ state: 'active', balance: 0 })).current_period_end;
    expectProblem(await text('no money'), 402, 'payment_required');
    await payByCard(t, org.headers, { intent: 'top_up', amount_usd: '5.00' });
    for (let i = 0; i < 5; i += 1) assert.equal((await text(`paid ${i}`)).statusCode, 202);
    const refused = expectProblem(await text('one too many'), 402, 'payment_required');
    assert.deepEqual([refused.payment.intent, refused.payment.amount_usd], ['top_up', '5.00']);
    await agree({ state: 'active', balance: 0 });
  });

  it('tops up, passes the period end it cannot renew: past_due, with a payment_failed event, still sending', async () => {
    await payByCard(t, org.headers, { intent: 'top_up', amount_usd: '12.00' });
    t.clock.advance(new Date(periodEnd).getTime() - t.clock.now().getTime());
    assert.equal(await t.services.billingPeriods.tick(), 1);
    const status = await agree({ state: 'past_due', balance: 12 });
    assert.equal(status.amount_due_usd, 20);
    const [failed] = await eventsOf(t, 'billing.payment_failed');
    assert.deepEqual(
      [failed.data.intent, failed.data.amount_usd, failed.data.reason],
      ['renewal', '20.00', 'insufficient_balance'],
    );
    assert.equal((await text('in the grace')).statusCode, 202);
    await agree({ state: 'past_due', balance: 11 });
  });

  it('is suspended at the end of the grace: its cell is suspended, sends and creates are 402 reinstate', async () => {
    t.clock.advance(GRACE_MS);
    assert.equal(await t.services.billingPeriods.tick(), 1);
    await agree({ state: 'suspended', balance: 11 });
    assert.equal((await get(`/v1/cells/${line.cell.id}`)).status, 'suspended');
    const refused = expectProblem(await text('suspended'), 402, 'payment_required');
    assert.deepEqual([refused.payment.intent, refused.payment.amount_usd], ['reinstate', '20.00']);
    const create = expectProblem(
      await t.app.inject({ method: 'POST', url: '/v1/cells', headers: org.headers, payload: { display_name: 'B' } }),
      402,
      'payment_required',
    );
    assert.equal(create.payment.intent, 'reinstate');
    const status = await get('/v1/agent/status');
    assert.equal(status.checks.find((c: { name: string }) => c.name === 'billing').status, 'fail');
  });

  it('pays what is due and sends again, its cell active', async () => {
    await payByCard(t, org.headers, { intent: 'reinstate' });
    const status = await agree({ state: 'active', balance: 11 });
    assert.ok(status.current_period_end > t.clock.now().toISOString());
    assert.equal((await get(`/v1/cells/${line.cell.id}`)).status, 'active');
    assert.equal((await text('back')).statusCode, 202);
    await agree({ state: 'active', balance: 10 });
    const changes = (await eventsOf(t, 'billing.status_changed')).map((e) => e.data.state);
    assert.deepEqual(changes, ['active', 'past_due', 'suspended', 'active']);
  });
});
