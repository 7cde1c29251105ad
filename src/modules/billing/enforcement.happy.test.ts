// Billing enforced (contract §7): cell creates and sends pay through the prepaid balance, a 402
// says what to pay, paying unblocks the same request, refunds for what never went out; the
// ledger, the balance, usage and the billing status agree at every step.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, expectProblem, startApp, verifiedOrganization, type TestApp, useApp } from '../../../test/harness.ts';
import { createCell } from '../../../test/support/cells.ts';
import { addDevice } from '../../../test/support/devices.ts';
import { BASE_PAY_TO, payByCard } from '../../../test/support/billing.ts';
import { activeLine, claim, report, send, type Line } from '../../../test/support/messages.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

async function billingStatus(t: TestApp, org: Org) {
  return (await t.app.inject({ method: 'GET', url: '/v1/billing/status', headers: org.headers })).json();
}

/** The ledger's sum, the balance the status reports, and the usage total, in micro-USD. */
async function books(t: TestApp, org: Org) {
  const ledger = await t.database.db
    .selectFrom('ledger_entries')
    .select(['kind', 'amount_micros'])
    .where('organization_id', '=', org.organizationId)
    .execute();
  const usage = await t.database.db
    .selectFrom('usage_records')
    .select(['type', 'amount_micros'])
    .where('organization_id', '=', org.organizationId)
    .execute();
  return {
    ledger: ledger.reduce((sum, row) => sum + Number(row.amount_micros), 0),
    balance: Math.round((await billingStatus(t, org)).prepaid_balance_usd * 1_000_000),
    messageDebits: ledger
      .filter((row) => row.kind === 'message')
      .reduce((sum, row) => sum + Number(row.amount_micros), 0),
    refunds: ledger.filter((row) => row.kind === 'refund').reduce((sum, row) => sum + Number(row.amount_micros), 0),
    usage: usage.reduce((sum, row) => sum + Number(row.amount_micros), 0),
  };
}

/** The ledger sum is the balance, and usage of messages is what was debited for them net of refunds. */
async function assertBooksAgree(t: TestApp, org: Org) {
  const b = await books(t, org);
  assert.equal(b.ledger, b.balance, 'the balance is the sum of the ledger');
  return b;
}

describe('billing enforced: from sign-up to sending', () => {
  const t = useApp();
  let org: Org;
  let line: Line;
  before(async () => {
    org = await verifiedOrganization(t);
  });

  it('answers a cell create of an organization with no tier with 402 and the setup to pay, for the tier asked', async () => {
    const refused = await t.app.inject({
      method: 'POST',
      url: '/v1/cells',
      headers: org.headers,
      payload: { display_name: 'A' },
    });
    const body = expectProblem(refused, 402, 'payment_required');
    // Every billing 402 carries PAYMENT-REQUIRED (§7); with no x402 network configured it accepts nothing.
    const required = JSON.parse(Buffer.from(String(refused.headers['payment-required']), 'base64').toString('utf8'));
    assert.equal(required.x402Version, 2);
    assert.equal(required.resource.url, 'http://cellgate.test/v1/cells');
    assert.deepEqual(required.accepts, []);
    assert.deepEqual(body.payment, {
      amount_usd: '20.00',
      currency: 'USD',
      intent: 'setup',
      tier: 'starter',
      rails: ['card_processor'],
      checkout_url: body.payment.checkout_url,
    });
    const pro = expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/cells?tier=pro',
        headers: org.headers,
        payload: { display_name: 'A' },
      }),
      402,
      'payment_required',
    );
    assert.equal(pro.payment.amount_usd, '100.00');
    assert.equal(pro.payment.tier, 'pro');
    const unknown = expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/cells?tier=gold',
        headers: org.headers,
        payload: { display_name: 'A' },
      }),
      400,
      'invalid_request',
    );
    assert.equal(unknown.errors[0].field, 'tier');
    const cells = (await t.app.inject({ url: '/v1/cells', headers: org.headers })).json();
    assert.deepEqual(cells.cells, [], 'nothing was created');
  });

  it('creates the cell once the setup is paid, then asks for a create_cell past the included cell', async () => {
    await payByCard(t, org.headers, { intent: 'setup' });
    line = await activeLine(t, {}, org);
    const body = expectProblem(
      await t.app.inject({ method: 'POST', url: '/v1/cells', headers: org.headers, payload: { display_name: 'B' } }),
      402,
      'payment_required',
    );
    assert.equal(body.payment.intent, 'create_cell');
    assert.equal(body.payment.amount_usd, '8.00');
    await payByCard(t, org.headers, { intent: 'create_cell' });
    await createCell(t, org.headers, 'B');
    expectProblem(
      await t.app.inject({ method: 'POST', url: '/v1/cells', headers: org.headers, payload: { display_name: 'C' } }),
      402,
      'payment_required',
    );
    const usage = await t.database.db
      .selectFrom('usage_records')
      .selectAll()
      .where('organization_id', '=', org.organizationId)
      .execute();
    assert.deepEqual(
      usage.map((u) => [u.type, u.quantity, Number(u.amount_micros)]),
      [['cell_month', 1, 8_000_000]],
    );
    const status = await billingStatus(t, org);
    assert.deepEqual(
      [status.state, status.tier, status.prepaid_balance_usd, status.cells],
      ['active', 'starter', 0, { included: 1, active: 2 }],
    );
    await assertBooksAgree(t, org);
  });

  it('answers a send the balance cannot cover with 402 top_up of at least the minimum, and stores nothing', async () => {
    const key = { 'idempotency-key': 'first-text' };
    const body = expectProblem(
      await send(t, line, { to: '+14155550100', body: 'hello' }, key),
      402,
      'payment_required',
    );
    assert.equal(body.payment.intent, 'top_up');
    assert.equal(body.payment.amount_usd, '5.00');
    const messages = (await t.app.inject({ url: `/v1/cells/${line.cell.id}/messages`, headers: org.headers })).json();
    assert.deepEqual(messages.messages, []);
    // Paid, the same request with the same key goes through: the 402 was not kept.
    await payByCard(t, org.headers, { intent: 'top_up', amount_usd: '5.00' });
    const sent = await send(t, line, { to: '+14155550100', body: 'hello' }, key);
    assert.equal(sent.statusCode, 202, sent.body);
    const replay = await send(t, line, { to: '+14155550100', body: 'hello' }, key);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    const b = await assertBooksAgree(t, org);
    assert.equal(b.balance, 4_990_000, 'one segment, charged once');
    assert.equal(b.messageDebits, -10_000);
  });

  it('charges per segment for a long text and the MMS price for media, each with its usage record', async () => {
    await send(t, line, { to: '+14155550100', body: 'x'.repeat(161) });
    await send(t, line, { to: '+14155550100', body: 'pic', media_urls: ['https://example.com/a.png'] });
    const usage = await t.database.db
      .selectFrom('usage_records')
      .select(['type', 'quantity', 'unit_price_micros', 'amount_micros'])
      .where('organization_id', '=', org.organizationId)
      .where('type', '!=', 'cell_month')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      usage.map((u) => [u.type, u.quantity, Number(u.unit_price_micros), Number(u.amount_micros)]),
      [
        ['sms', 1, 10_000, 10_000],
        ['sms', 2, 10_000, 20_000],
        ['mms', 1, 30_000, 30_000],
      ],
    );
    const b = await assertBooksAgree(t, org);
    assert.equal(b.balance, 4_940_000);
    assert.equal(b.messageDebits, -b.usage + 8_000_000, 'usage of messages is what was debited for them');
  });

  it('refunds a canceled message and one that failed before it was sent, once, and drops their usage', async () => {
    const canceled = (await send(t, line, { to: '+14155550100', body: 'never mind' })).json();
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: `/v1/cells/${line.cell.id}/messages/${canceled.id}/cancel`,
          headers: org.headers,
        })
      ).statusCode,
      200,
    );
    assert.equal((await assertBooksAgree(t, org)).balance, 4_940_000);

    const failing = (await send(t, line, { to: '+14155550100', body: 'will fail' })).json();
    const claimed = await claim(t, line);
    assert.ok(claimed.some((m) => m.id === failing.id));
    for (const m of claimed) if (m.id !== failing.id) await report(t, line, m.id, { event: 'sent' });
    assert.equal((await report(t, line, failing.id, { event: 'failed', error_code: 'radio_off' })).statusCode, 200);
    assert.equal((await report(t, line, failing.id, { event: 'failed', error_code: 'radio_off' })).statusCode, 200);
    const b = await assertBooksAgree(t, org);
    assert.equal(b.balance, 4_940_000);
    assert.equal(b.refunds, 20_000);
    const refunded = await t.database.db
      .selectFrom('usage_records')
      .select('id')
      .where('message_id', 'in', [canceled.id, failing.id])
      .execute();
    assert.deepEqual(refunded, []);
  });

  it('takes a batch of concurrent sends while the balance covers them, and refuses the rest with a top_up of the minimum', async () => {
    const spend = Math.floor((await books(t, org)).balance / 10_000);
    const results = await Promise.all(
      Array.from({ length: spend + 3 }, (_, i) => send(t, line, { to: '+14155550100', body: `n${i}` })),
    );
    assert.equal(results.filter((r) => r.statusCode === 202).length, spend);
    const refused = results.filter((r) => r.statusCode === 402);
    assert.equal(refused.length, 3);
    for (const r of refused) assert.equal(r.json().payment.amount_usd, '5.00');
    const b = await assertBooksAgree(t, org);
    assert.equal(b.balance, 0, 'never overdrawn');
  });
});

describe('billing enforced: a suspended organization', () => {
  it('answers sends and cell creates with 402 reinstate, and sends again once the amount due is paid', async () => {
    const t = await startApp();
    try {
      const org = await verifiedOrganization(t);
      await addDevice(t);
      await payByCard(t, org.headers, { intent: 'setup' });
      await payByCard(t, org.headers, { intent: 'top_up', amount_usd: '5.00' });
      const cell = await createCell(t, org.headers, 'A');
      const line = { org, cell } as Line;
      assert.equal(
        (
          await t.app.inject({
            method: 'POST',
            url: `/v1/admin/organizations/${org.organizationId}/suspend`,
            headers: admin,
            payload: { reason: 'chargeback' },
          })
        ).statusCode,
        200,
      );
      const refused = expectProblem(await send(t, line, { to: '+14155550100', body: 'hi' }), 402, 'payment_required');
      assert.deepEqual(
        [refused.payment.intent, refused.payment.amount_usd, refused.payment.tier],
        ['reinstate', '20.00', 'starter'],
      );
      const create = expectProblem(
        await t.app.inject({ method: 'POST', url: '/v1/cells', headers: org.headers, payload: { display_name: 'B' } }),
        402,
        'payment_required',
      );
      assert.equal(create.payment.intent, 'reinstate');
      await payByCard(t, org.headers, { intent: 'reinstate' });
      assert.equal((await billingStatus(t, org)).state, 'active');
      assert.equal((await send(t, line, { to: '+14155550100', body: 'hi' })).statusCode, 202);
      await assertBooksAgree(t, org);
    } finally {
      await t.close();
    }
  });
});

describe('billing off', () => {
  it('never answers 402 nor debits, and still writes priced usage records', async () => {
    const t = await startApp({ env: { CELLGATE_BILLING: 'off' } });
    try {
      const org = await verifiedOrganization(t);
      await addDevice(t);
      await addDevice(t);
      const cell = await createCell(t, org.headers, 'A');
      await createCell(t, org.headers, 'B');
      const sent = await send(t, { org, cell } as Line, { to: '+14155550100', body: 'free' });
      assert.equal(sent.statusCode, 202, sent.body);
      const usage = await t.database.db
        .selectFrom('usage_records')
        .select(['type', 'amount_micros'])
        .where('organization_id', '=', org.organizationId)
        .execute();
      assert.deepEqual(
        usage.map((u) => [u.type, Number(u.amount_micros)]),
        [['sms', 10_000]],
      );
      const ledger = await t.database.db
        .selectFrom('ledger_entries')
        .selectAll()
        .where('organization_id', '=', org.organizationId)
        .execute();
      assert.deepEqual(ledger, []);
      assert.equal((await billingStatus(t, org)).state, 'exempt');
    } finally {
      await t.close();
    }
  });
});

describe('billing enforced: a 402 a client can act on directly', () => {
  it('carries a working checkout_url and, with x402 configured, the x402 v2 PAYMENT-REQUIRED header from the same quote', async () => {
    const t = await startApp({ env: { CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO } });
    try {
      const org = await verifiedOrganization(t);
      const response = await t.app.inject({
        method: 'POST',
        url: '/v1/cells',
        headers: org.headers,
        payload: { display_name: 'A' },
      });
      const body = expectProblem(response, 402, 'payment_required');
      assert.deepEqual(body.payment.rails, ['card_processor', 'x402']);
      const required = JSON.parse(Buffer.from(String(response.headers['payment-required']), 'base64').toString('utf8'));
      assert.equal(required.x402Version, 2);
      assert.equal(required.resource.url, 'http://cellgate.test/v1/cells');
      assert.deepEqual(required.accepts, [
        {
          scheme: 'exact',
          network: 'eip155:8453',
          amount: '20000000',
          asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
          payTo: BASE_PAY_TO,
          maxTimeoutSeconds: 300,
          extra: { name: 'USD Coin', version: '2' },
        },
      ]);
      // A person opens the checkout_url of the 402 and pays; the same create then succeeds.
      const url = new URL(body.payment.checkout_url);
      const paid = await t.app.inject({
        method: 'POST',
        url: url.pathname + url.search,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: '',
      });
      assert.equal(paid.statusCode, 200);
      assert.equal((await billingStatus(t, org)).state, 'active');
      const created = await t.app.inject({
        method: 'POST',
        url: '/v1/cells',
        headers: org.headers,
        payload: { display_name: 'A' },
      });
      assert.equal(created.statusCode, 201, created.body);
    } finally {
      await t.close();
    }
  });
});
