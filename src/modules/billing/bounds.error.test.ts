// Money bounds (contract §7): one payment at most CELLGATE_MAX_PAYMENT_USD on every rail and
// intent (400 naming amount_usd), an operator credit at most 1,000,000.00 (400), a balance never
// above 1,000,000,000.00 (409 conflict, nothing written); every amount exact at each bound, on
// SQLite and on PostgreSQL (CELLGATE_TEST_DATABASE_URL).
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../config.ts';
import { transact } from '../../db/transaction.ts';
import { admin, expectProblem, startApp, verifiedOrganization, type TestApp, useApp } from '../../../test/harness.ts';
import { BASE_PAY_TO } from '../../../test/support/billing.ts';
import { BillingRepository } from './repository.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;
type Response = Awaited<ReturnType<TestApp['app']['inject']>>;

const CEILING_MICROS = 1_000_000_000_000_000;

/** A 400 invalid_request whose errors[] names amount_usd with this code. */
function amountRefused(response: Response, code: string) {
  const body = expectProblem(response, 400, 'invalid_request');
  assert.deepEqual(
    body.errors.map((e: { field: string; code: string }) => [e.field, e.code]),
    [['amount_usd', code]],
    response.body,
  );
  return body;
}

const creditOf = (t: TestApp, org: Org, amountUsd: string) =>
  t.app.inject({
    method: 'POST',
    url: `/v1/admin/organizations/${org.organizationId}/credits`,
    headers: admin,
    payload: { amount_usd: amountUsd, reason: 'bounds test' },
  });
const checkout = (t: TestApp, org: Org, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/v1/billing/checkout', headers: org.headers, payload });
const balanceOf = async (t: TestApp, org: Org) =>
  (await t.app.inject({ method: 'GET', url: '/v1/billing/status', headers: org.headers })).json().prepaid_balance_usd;

/** What the organization's books hold, straight from the database (to prove a refusal wrote nothing). */
async function books(t: TestApp, org: Org) {
  const db = t.database.db;
  const [ledger, actions, account] = await Promise.all([
    db
      .selectFrom('ledger_entries')
      .select(['kind', 'amount_micros'])
      .where('organization_id', '=', org.organizationId)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('billing_operator_actions')
      .select('action')
      .where('organization_id', '=', org.organizationId)
      .execute(),
    db
      .selectFrom('billing_accounts')
      .select('prepaid_balance_micros')
      .where('organization_id', '=', org.organizationId)
      .executeTakeFirst(),
  ]);
  return {
    ledger: ledger.map((row) => [row.kind, Number(row.amount_micros)]),
    actions: actions.length,
    balance: Number(account?.prepaid_balance_micros ?? 0),
  };
}

/**
 * Sets the balance to `micros` with one ledger row, as a thousand maximal operator credits would
 * (the route takes at most 1,000,000.00 per call; a thousand calls would only slow the test).
 */
async function seedBalance(t: TestApp, org: Org, micros: number) {
  const repo = new BillingRepository(t.database.db);
  await transact(t.database.db, (tx) =>
    repo.appendLedger(tx, {
      organization_id: org.organizationId,
      kind: 'operator_credit',
      amount_micros: micros,
      reference: null,
      description: 'seed',
      created_at: t.clock.now().toISOString(),
    }),
  );
}

describe('money bounds: one payment at most CELLGATE_MAX_PAYMENT_USD', () => {
  const t = useApp({ env: { CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO } });
  let org: Org;
  before(async () => {
    org = await verifiedOrganization(t);
  });

  it('takes a top-up of exactly 10000.00 by card, and refuses 10000.01 with 400 naming amount_usd', async () => {
    const started = await checkout(t, org, { intent: 'top_up', amount_usd: '10000.00' });
    assert.equal(started.statusCode, 201, started.body);
    assert.equal(started.json().amount_usd, '10000.00');
    const refused = amountRefused(await checkout(t, org, { intent: 'top_up', amount_usd: '10000.01' }), 'too_large');
    assert.match(refused.detail, /at most \$10000\.00/);
    amountRefused(await checkout(t, org, { intent: 'top_up', amount_usd: 10000.01 }), 'too_large');
    amountRefused(await checkout(t, org, { intent: 'top_up', amount_usd: '999999999.99' }), 'too_large');
  });

  it('refuses the same on x402 pay, MPP pay and the x402 quote', async () => {
    const atMost = { intent: 'top_up', amount_usd: '10000.00' };
    const past = { intent: 'top_up', amount_usd: '10000.01' };
    expectProblem(
      await t.app.inject({ method: 'POST', url: '/v1/billing/x402/pay', headers: org.headers, payload: atMost }),
      402,
      'payment_required',
    );
    amountRefused(
      await t.app.inject({ method: 'POST', url: '/v1/billing/x402/pay', headers: org.headers, payload: past }),
      'too_large',
    );
    amountRefused(
      await t.app.inject({ method: 'POST', url: '/v1/billing/mpp/pay', headers: org.headers, payload: past }),
      'too_large',
    );
    const quote = await t.app.inject({
      method: 'GET',
      url: '/v1/billing/x402/requirements?intent=top_up&amount_usd=10000.00',
      headers: org.headers,
    });
    assert.equal(quote.statusCode, 200, quote.body);
    amountRefused(
      await t.app.inject({
        method: 'GET',
        url: '/v1/billing/x402/requirements?intent=top_up&amount_usd=10000.01',
        headers: org.headers,
      }),
      'too_large',
    );
  });

  it('refuses absurd amounts as malformed, not as a server error', async () => {
    for (const amount of [
      '999999999999999999.99',
      '1e9',
      '-1',
      '0.001',
      '1,000.00',
      ' 5.00',
      'NaN',
      'Infinity',
      '0x10',
    ]) {
      const response = await checkout(t, org, { intent: 'top_up', amount_usd: amount });
      const body = expectProblem(response, 400, 'invalid_request');
      assert.equal(body.errors[0].field, 'amount_usd', `${amount}: ${response.body}`);
    }
    for (const amount of [1e21, -1, 0.001, 1e9]) {
      const response = await checkout(t, org, { intent: 'top_up', amount_usd: amount });
      const body = expectProblem(response, 400, 'invalid_request');
      assert.equal(body.errors[0].field, 'amount_usd', `${amount}: ${response.body}`);
    }
  });
});

describe('money bounds: a lower CELLGATE_MAX_PAYMENT_USD', () => {
  it('applies to every intent, a tier setup too', async () => {
    const t = await startApp({ env: { CELLGATE_MAX_PAYMENT_USD: '50.00' } });
    try {
      const org = await verifiedOrganization(t);
      assert.equal((await checkout(t, org, { intent: 'setup', tier: 'starter' })).statusCode, 201);
      const refused = amountRefused(await checkout(t, org, { intent: 'setup', tier: 'pro' }), 'too_large');
      assert.match(refused.detail, /at most \$50\.00; this setup is \$100\.00/);
      assert.equal((await checkout(t, org, { intent: 'top_up', amount_usd: '50.00' })).statusCode, 201);
      amountRefused(await checkout(t, org, { intent: 'top_up', amount_usd: '50.01' }), 'too_large');
    } finally {
      await t.close();
    }
  });
});

describe('money bounds: an operator credit', () => {
  const t = useApp();
  let org: Org;
  before(async () => {
    org = await verifiedOrganization(t);
  });

  it('takes exactly 1000000.00, and refuses 1000000.01 with 400 naming amount_usd, writing nothing', async () => {
    const credited = await creditOf(t, org, '1000000.00');
    assert.equal(credited.statusCode, 200, credited.body);
    assert.equal(credited.json().billing.prepaid_balance_usd, 1_000_000);
    const before = await books(t, org);
    amountRefused(await creditOf(t, org, '1000000.01'), 'too_large');
    amountRefused(await creditOf(t, org, '999999999.99'), 'too_large');
    assert.deepEqual(await books(t, org), before);
  });

  it('refuses malformed amounts with 400 naming amount_usd', async () => {
    for (const amount of ['999999999999999999.99', '1e9', '-1', '0.001', '0', '0.00', '']) {
      const response = await creditOf(t, org, amount);
      const body = expectProblem(response, 400, 'invalid_request');
      assert.equal(body.errors[0].field, 'amount_usd', `${amount}: ${response.body}`);
    }
  });
});

describe('money bounds: the balance ceiling of 1000000000.00', () => {
  const t = useApp();

  it('credits up to exactly the ceiling and reads it back exactly; one cent more is 409 conflict and writes nothing', async () => {
    const org = await verifiedOrganization(t);
    await seedBalance(t, org, CEILING_MICROS - 1_000_000_000_000);
    const credited = await creditOf(t, org, '1000000.00');
    assert.equal(credited.statusCode, 200, credited.body);
    assert.equal(credited.json().billing.prepaid_balance_usd, 1_000_000_000);
    assert.equal(await balanceOf(t, org), 1_000_000_000);
    const listed = await t.app.inject({
      method: 'GET',
      url: `/v1/admin/organizations?email=${encodeURIComponent(org.email)}`,
      headers: admin,
    });
    assert.equal(listed.statusCode, 200, listed.body);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/v1/billing/payment-options', headers: org.headers })).json()
        .prepaid_balance_usd,
      1_000_000_000,
    );
    const before = await books(t, org);
    assert.equal(before.balance, CEILING_MICROS);
    const refused = expectProblem(await creditOf(t, org, '0.01'), 409, 'conflict');
    assert.match(refused.detail, /would pass its ceiling of \$1000000000\.00/);
    expectProblem(await checkout(t, org, { intent: 'top_up', amount_usd: '5.00' }), 409, 'conflict');
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/billing/x402/pay',
        headers: org.headers,
        payload: { intent: 'top_up', amount_usd: '5.00' },
      }),
      409,
      'conflict',
    );
    assert.deepEqual(await books(t, org), before);
  });

  it('reads a balance one micro-dollar under the ceiling exactly, and refuses a cent more', async () => {
    const org = await verifiedOrganization(t);
    await seedBalance(t, org, CEILING_MICROS - 1);
    assert.equal(await balanceOf(t, org), 999_999_999.999999);
    assert.equal((await books(t, org)).balance, CEILING_MICROS - 1);
    expectProblem(await creditOf(t, org, '0.01'), 409, 'conflict');
    assert.equal((await books(t, org)).balance, CEILING_MICROS - 1);
  });

  it('still sells a period at the ceiling (a setup leaves nothing on the balance)', async () => {
    const org = await verifiedOrganization(t);
    await seedBalance(t, org, CEILING_MICROS);
    const started = await checkout(t, org, { intent: 'setup' });
    assert.equal(started.statusCode, 201, started.body);
    const url = new URL(started.json().checkout_url);
    const paid = await t.app.inject({
      method: 'POST',
      url: url.pathname + url.search,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    assert.equal(paid.statusCode, 200, paid.body);
    assert.equal(await balanceOf(t, org), 1_000_000_000);
  });

  it("refuses the local card page's Pay when a payment landed meanwhile would pass the ceiling: 409, the payment stays open, nothing credited", async () => {
    const org = await verifiedOrganization(t);
    await seedBalance(t, org, CEILING_MICROS - 5_000_000);
    const first = new URL((await checkout(t, org, { intent: 'top_up', amount_usd: '5.00' })).json().checkout_url);
    const second = new URL((await checkout(t, org, { intent: 'top_up', amount_usd: '5.00' })).json().checkout_url);
    const pay = (url: URL) =>
      t.app.inject({
        method: 'POST',
        url: url.pathname + url.search,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: '',
      });
    assert.equal((await pay(first)).statusCode, 200);
    assert.equal(await balanceOf(t, org), 1_000_000_000);
    const before = await books(t, org);
    const refused = await pay(second);
    assert.equal(refused.statusCode, 409);
    assert.match(refused.body, /Not paid/);
    assert.match(refused.body, /would pass its ceiling/);
    assert.deepEqual(await books(t, org), before);
    const paymentId = second.pathname.split('/').pop() as string;
    const row = await t.database.db
      .selectFrom('payments')
      .select(['status', 'completed_at'])
      .where('id', '=', paymentId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { status: 'pending', completed_at: null });
    const events = await t.database.db
      .selectFrom('events')
      .select('type')
      .where('organization_id', '=', org.organizationId)
      .where('type', '=', 'billing.payment_succeeded')
      .execute();
    assert.equal(events.length, 1);
  });
});

describe('CELLGATE_MAX_PAYMENT_USD at start-up', () => {
  const maxOf = (env: Record<string, string>) =>
    loadConfig({ CELLGATE_DATABASE_URL: 'sqlite::memory:', ...env }).maxPaymentMicros;

  it('defaults to 10000.00 and takes dollars with at most 2 decimals from min_amount_usd to 1000000.00', () => {
    assert.equal(maxOf({}), 10_000_000_000);
    assert.equal(maxOf({ CELLGATE_MAX_PAYMENT_USD: '250.50' }), 250_500_000);
    assert.equal(maxOf({ CELLGATE_MAX_PAYMENT_USD: '5' }), 5_000_000);
    assert.equal(maxOf({ CELLGATE_MAX_PAYMENT_USD: '1000000.00' }), 1_000_000_000_000);
    assert.equal(maxOf({ CELLGATE_MAX_PAYMENT_USD: '1', CELLGATE_PRICES: '{"min_amount_usd": "1"}' }), 1_000_000);
  });

  it('stops with one line naming the variable on anything else', () => {
    for (const raw of ['1000000.01', '4.99', '0', '-5', '1e4', '10000.001', 'ten', '999999999999999999.99']) {
      assert.throws(
        () => maxOf({ CELLGATE_MAX_PAYMENT_USD: raw }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.message ===
            `CELLGATE_MAX_PAYMENT_USD must be a dollar amount from 5.00 (min_amount_usd) to 1000000.00 with at most 2 decimals (got ${JSON.stringify(raw)})`,
        raw,
      );
    }
  });
});
