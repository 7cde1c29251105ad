// An x402 payment payload is credited once, ever, even by a facilitator that settles whatever it is
// sent: presented again to a second quote, by a second organization, on another route or twice at
// once, it is a 402 payment_required with reason `replayed` and no second credit (Base: payer and
// EIP-3009 nonce; Solana: the transaction's signatures and signed message).
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { expectProblem, startApp, verifiedOrganization, type TestApp } from '../../../test/harness.ts';
import { BOTH_NETWORKS } from '../../../test/support/billing.ts';
import { addDevice } from '../../../test/support/devices.ts';
import { solanaTransaction, startFacilitator, type FacilitatorDouble } from '../../../test/support/x402-facilitator.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

const wallet = x402Client.fromConfig({
  schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(privateKeyToAccount(generatePrivateKey())) }],
  spendControls: false,
});

describe('x402: a payment payload is credited once, ever', () => {
  let t: TestApp;
  let facilitator: FacilitatorDouble;
  let org: Org;
  let other: Org;
  before(async () => {
    facilitator = await startFacilitator();
    facilitator.mode = 'settles_anything';
    t = await startApp({ env: { ...BOTH_NETWORKS, CELLGATE_X402_FACILITATOR_URL: facilitator.url } });
  });
  beforeEach(async () => {
    org = await verifiedOrganization(t);
    other = await verifiedOrganization(t);
  });
  after(async () => {
    await t.close();
    await facilitator.close();
  });

  const topUp = (who: Org, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/billing/x402/pay',
      headers: { ...who.headers, ...headers },
      payload: { intent: 'top_up', amount_usd: '5.00' },
    });

  /** A fresh 402 (and so an open quote) for `who`: its PAYMENT-REQUIRED. */
  async function quote(who: Org): Promise<PaymentRequired> {
    const refused = await topUp(who);
    assert.equal(refused.statusCode, 402);
    return decodePaymentRequiredHeader(String(refused.headers['payment-required']));
  }

  const baseSignature = async (who: Org) =>
    encodePaymentSignatureHeader(await wallet.createPaymentPayload(await quote(who)));

  function solanaSignature(required: PaymentRequired, transaction: string): string {
    const accepted = required.accepts.find((a) => a.network.startsWith('solana:'));
    assert.ok(accepted);
    return encodePaymentSignatureHeader({
      x402Version: 2,
      resource: required.resource,
      accepted,
      payload: { transaction },
    } as PaymentPayload);
  }

  const credits = async (who: Org) =>
    (
      await t.database.db
        .selectFrom('ledger_entries')
        .select('amount_micros')
        .where('organization_id', '=', who.organizationId)
        .where('kind', '=', 'payment')
        .execute()
    ).length;
  const settles = () => facilitator.calls.filter((c) => c.path === '/settle').length;

  function assertReplayed(response: Awaited<ReturnType<typeof topUp>>) {
    const body = expectProblem(response, 402, 'payment_required');
    assert.equal(body.reason, 'replayed');
    assert.match(body.detail, /replayed/);
    assert.equal(body.payment.intent, 'top_up', 'the 402 still says what to pay');
    assert.ok(response.headers['payment-required'], 'with a fresh PAYMENT-REQUIRED');
  }

  it('refuses the same Base payload for a second quote of the same amount, before the facilitator settles it', async () => {
    const signature = await baseSignature(org);
    assert.equal((await topUp(org, { 'payment-signature': signature })).statusCode, 200);
    await quote(org);
    const before = settles();
    assertReplayed(await topUp(org, { 'payment-signature': signature }));
    assert.equal(settles(), before, 'the facilitator is not asked to settle a replay');
    assert.equal(await credits(org), 1);
  });

  it('refuses the same Base payload presented by a second organization', async () => {
    const signature = await baseSignature(org);
    assert.equal((await topUp(org, { 'payment-signature': signature })).statusCode, 200);
    await quote(other);
    assertReplayed(await topUp(other, { 'payment-signature': signature }));
    assert.deepEqual([await credits(org), await credits(other)], [1, 0]);
  });

  it('refuses the same payload retried on another route: a cell create is 402 replayed and creates nothing', async () => {
    const signature = await baseSignature(org);
    assert.equal((await topUp(org, { 'payment-signature': signature })).statusCode, 200);
    await addDevice(t);
    const create = () =>
      t.app.inject({
        method: 'POST',
        url: '/v1/cells',
        headers: { ...org.headers, 'payment-signature': signature },
        payload: { display_name: 'Replayed' },
      });
    const refused = await t.app.inject({
      method: 'POST',
      url: '/v1/cells',
      headers: org.headers,
      payload: { display_name: 'Replayed' },
    });
    assert.equal(refused.statusCode, 402);
    const body = expectProblem(await create(), 402, 'payment_required');
    assert.equal(body.reason, 'replayed');
    assert.deepEqual((await t.app.inject({ url: '/v1/cells', headers: org.headers })).json().cells, []);
    assert.equal(await credits(org), 1);
  });

  it('credits the same payload presented twice at once only once', async () => {
    const required = await quote(org);
    await quote(org);
    const signature = encodePaymentSignatureHeader(await wallet.createPaymentPayload(required));
    const answers = await Promise.all([
      topUp(org, { 'payment-signature': signature }),
      topUp(org, { 'payment-signature': signature }),
    ]);
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 402]);
    assertReplayed(answers.find((a) => a.statusCode === 402) as Awaited<ReturnType<typeof topUp>>);
    assert.equal(await credits(org), 1);
    assert.equal(
      (await t.app.inject({ url: '/v1/billing/status', headers: org.headers })).json().prepaid_balance_usd,
      5,
    );
  });

  it('credits the same payload raced by two organizations only once', async () => {
    const signature = await baseSignature(org);
    await quote(other);
    const answers = await Promise.all([
      topUp(org, { 'payment-signature': signature }),
      topUp(other, { 'payment-signature': signature }),
    ]);
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 402]);
    assert.equal((await credits(org)) + (await credits(other)), 1);
  });

  it('refuses a Solana transaction presented again, even with the empty fee payer slot filled in', async () => {
    const { transaction } = solanaTransaction();
    const first = await topUp(org, { 'payment-signature': solanaSignature(await quote(org), transaction) });
    assert.equal(first.statusCode, 200, first.body);
    assertReplayed(await topUp(other, { 'payment-signature': solanaSignature(await quote(other), transaction) }));
    // The same signed message with junk where the facilitator's signature goes.
    const bytes = Buffer.from(transaction, 'base64');
    bytes.fill(7, 1, 65);
    assertReplayed(
      await topUp(org, { 'payment-signature': solanaSignature(await quote(org), bytes.toString('base64')) }),
    );
    assert.deepEqual([await credits(org), await credits(other)], [1, 0]);
  });

  it('refuses, without settling, a payload that names no transfer', async () => {
    const required = await quote(org);
    const payload = await wallet.createPaymentPayload(required);
    const before = settles();
    for (const broken of [{}, { authorization: { ...(payload.payload.authorization as object), nonce: '0x12' } }]) {
      const body = expectProblem(
        await topUp(org, { 'payment-signature': encodePaymentSignatureHeader({ ...payload, payload: broken }) }),
        402,
        'payment_required',
      );
      assert.match(body.detail, /names no transfer/);
    }
    expectProblem(
      await topUp(org, {
        'payment-signature': solanaSignature(required, Buffer.from('not a transaction').toString('base64')),
      }),
      402,
      'payment_required',
    );
    assert.equal(settles(), before);
    assert.equal(await credits(org), 0);
  });
});
