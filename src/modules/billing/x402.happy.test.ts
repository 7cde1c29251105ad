// x402 pay-and-retry through a standard client (@x402/fetch with a viem test account) against a
// local facilitator that really checks the signatures: an organization with no balance creates a
// cell and sends a message, each paid once, whatever the retries; and the ways a payment is refused.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { x402Client, wrapFetchWithPayment } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startApp, verifiedOrganization, type TestApp } from '../../../test/harness.ts';
import { BASE_PAY_TO } from '../../../test/support/billing.ts';
import { addDevice } from '../../../test/support/devices.ts';
import { startFacilitator, type FacilitatorDouble } from '../../../test/support/x402-facilitator.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

describe('x402: pay and retry with a standard client', () => {
  let t: TestApp;
  let facilitator: FacilitatorDouble;
  let base: string;
  let org: Org;
  /** The PAYMENT-SIGNATURE headers the client sent, in order. */
  const signatures: string[] = [];
  let pay: typeof fetch;

  before(async () => {
    facilitator = await startFacilitator();
    t = await startApp({
      env: { CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO, CELLGATE_X402_FACILITATOR_URL: facilitator.url },
    });
    base = (await t.app.listen({ host: '127.0.0.1', port: 0 })).replace('localhost', '127.0.0.1');
    org = await verifiedOrganization(t);
    // A wallet that may pay up to $100 a payment (the client's default cap is $1).
    const client = x402Client.fromConfig({
      schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(privateKeyToAccount(generatePrivateKey())) }],
      spendControls: { maxAmountPerPayment: '$100' },
    });
    const recording: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const signature = request.headers.get('payment-signature');
      if (signature) signatures.push(signature);
      return fetch(request);
    };
    pay = wrapFetchWithPayment(recording, client);
  });
  after(async () => {
    await t.close();
    await facilitator.close();
  });

  const call = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    pay(`${base}${path}`, {
      method: 'POST',
      headers: { ...org.headers, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const status = async () => (await t.app.inject({ url: '/v1/billing/status', headers: org.headers })).json();
  const payments = () =>
    t.database.db
      .selectFrom('ledger_entries')
      .select(['kind', 'amount_micros', 'reference'])
      .where('organization_id', '=', org.organizationId)
      .where('kind', '=', 'payment')
      // In the order they were credited (PostgreSQL returns an unordered read in any order).
      .orderBy('id')
      .execute();

  it('creates a first cell: 402 setup, the client pays $20.00 USDC, the create happens in the retry', async () => {
    await addDevice(t);
    const response = await call('/v1/cells', { display_name: 'Paid by x402' });
    assert.equal(response.status, 201, await response.clone().text());
    const settlement = decodePaymentResponseHeader(String(response.headers.get('payment-response')));
    assert.equal(settlement.success, true);
    assert.equal(settlement.network, 'eip155:8453');
    assert.equal(((await response.json()) as { status: string }).status, 'active');
    const billing = await status();
    assert.deepEqual([billing.state, billing.tier, billing.prepaid_balance_usd], ['active', 'starter', 0]);
    assert.deepEqual(
      (await payments()).map((p) => Number(p.amount_micros)),
      [20_000_000],
    );
    assert.equal(signatures.length, 1);
  });

  it('sends a message with no balance: 402 top_up, the client pays $5.00, the send is accepted and charged once', async () => {
    const cell = (
      (await (await pay(`${base}/v1/cells`, { headers: org.headers })).json()) as { cells: { id: string }[] }
    ).cells[0];
    const key = { 'idempotency-key': 'x402-first-text' };
    const response = await call(
      `/v1/cells/${cell.id}/messages/send`,
      { to: '+14155550100', body: 'paid by my wallet' },
      key,
    );
    assert.equal(response.status, 202, await response.clone().text());
    assert.equal((await status()).prepaid_balance_usd, 4.99);
    // The client retries the whole call (same key): a replay, neither paid nor charged again.
    const settles = facilitator.calls.filter((c) => c.path === '/settle').length;
    const again = await call(
      `/v1/cells/${cell.id}/messages/send`,
      { to: '+14155550100', body: 'paid by my wallet' },
      key,
    );
    assert.equal(again.status, 202);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(facilitator.calls.filter((c) => c.path === '/settle').length, settles);
    assert.equal((await status()).prepaid_balance_usd, 4.99);
    assert.deepEqual(
      (await payments()).map((p) => Number(p.amount_micros)),
      [20_000_000, 5_000_000],
    );
  });

  it('refuses a payment signature used before: 402, nothing credited twice', async () => {
    const response = await fetch(`${base}/v1/billing/x402/pay`, {
      method: 'POST',
      headers: { ...org.headers, 'content-type': 'application/json', 'payment-signature': signatures[1] },
      body: JSON.stringify({ intent: 'top_up', amount_usd: '5.00' }),
    });
    assert.equal(response.status, 402);
    assert.equal((await payments()).length, 2);
    assert.equal((await status()).prepaid_balance_usd, 4.99);
  });

  it('pays an intent directly with POST /v1/billing/x402/pay', async () => {
    const response = await call('/v1/billing/x402/pay', { intent: 'top_up', amount_usd: '7.50' });
    assert.equal(response.status, 200, await response.clone().text());
    const body = (await response.json()) as {
      intent: string;
      amount_usd: string;
      billing: { prepaid_balance_usd: number };
    };
    assert.deepEqual([body.intent, body.amount_usd, body.billing.prepaid_balance_usd], ['top_up', '7.50', 12.49]);
    assert.ok(response.headers.get('payment-response'));
  });
});
