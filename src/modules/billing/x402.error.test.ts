// x402 payments that must be refused: garbled, tampered (recipient, amount, network, signature),
// a facilitator that refuses to settle or cannot be reached, and x402 without a facilitator. Each
// answers a 402 (400 for a payload that is not one) with the reason; nothing is credited and the
// action does not happen.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import { x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { expectProblem, startApp, verifiedOrganization, type TestApp } from '../../../test/harness.ts';
import { BASE_PAY_TO } from '../../../test/support/billing.ts';
import { startFacilitator, type FacilitatorDouble } from '../../../test/support/x402-facilitator.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

const account = privateKeyToAccount(generatePrivateKey());
const wallet = x402Client.fromConfig({
  schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(account) }],
  spendControls: false,
});

/** The same authorization signed again with a validity window that ended a minute ago (real time: the chain's). */
async function expired(payload: PaymentPayload): Promise<PaymentPayload> {
  const auth = payload.payload.authorization as Record<string, string>;
  const validBefore = String(Math.floor(Date.now() / 1000) - 60);
  const message = { ...auth, validAfter: '0', validBefore };
  const signature = await account.signTypedData({
    domain: {
      name: String(payload.accepted.extra.name),
      version: String(payload.accepted.extra.version),
      chainId: 8453,
      verifyingContract: payload.accepted.asset as `0x${string}`,
    },
    types: {
      TransferWithAuthorization: [
        { name: 'from', type: 'address' },
        { name: 'to', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'validAfter', type: 'uint256' },
        { name: 'validBefore', type: 'uint256' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'TransferWithAuthorization',
    message: {
      from: auth.from as `0x${string}`,
      to: auth.to as `0x${string}`,
      value: BigInt(auth.value),
      validAfter: 0n,
      validBefore: BigInt(validBefore),
      nonce: auth.nonce as `0x${string}`,
    },
  });
  return { ...payload, payload: { ...payload.payload, authorization: message, signature } };
}

describe('x402: refused payments', () => {
  let t: TestApp;
  let facilitator: FacilitatorDouble;
  let org: Org;
  before(async () => {
    facilitator = await startFacilitator();
    t = await startApp({
      env: {
        CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO,
        CELLGATE_X402_FACILITATOR_URL: facilitator.url,
        // Short enough for the hanging facilitator's case, long enough that a loaded machine's
        // ordinary verify call never runs into it.
        CELLGATE_X402_FACILITATOR_TIMEOUT_MS: '2000',
      },
    });
    org = await verifiedOrganization(t);
  });
  after(async () => {
    await t.close();
    await facilitator.close();
  });

  const topUp = (headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/billing/x402/pay',
      headers: { ...org.headers, ...headers },
      payload: { intent: 'top_up', amount_usd: '5.00' },
    });

  /** A real signed payment for a fresh 402, changed by `tamper` before it is sent. */
  async function signed(tamper: (payload: PaymentPayload) => PaymentPayload = (p) => p): Promise<string> {
    const refused = await topUp();
    assert.equal(refused.statusCode, 402);
    const required = decodePaymentRequiredHeader(String(refused.headers['payment-required']));
    return encodePaymentSignatureHeader(tamper(await wallet.createPaymentPayload(required)));
  }

  async function assertNothingPaid() {
    const credits = await t.database.db
      .selectFrom('ledger_entries')
      .select('id')
      .where('organization_id', '=', org.organizationId)
      .execute();
    assert.deepEqual(credits, []);
    assert.equal(facilitator.settled.size, 0);
  }

  it('answers 400 naming PAYMENT-SIGNATURE for a header that is not a payment payload', async () => {
    const body = expectProblem(await topUp({ 'payment-signature': 'not base64 json!' }), 400, 'invalid_request');
    assert.equal(body.errors[0].field, 'PAYMENT-SIGNATURE');
    await assertNothingPaid();
  });

  const tampered: [string, (p: PaymentPayload) => PaymentPayload, RegExp][] = [
    [
      'a recipient that is not ours',
      (p) => ({ ...p, accepted: { ...p.accepted, payTo: '0x000000000000000000000000000000000000dEaD' } }),
      /recipient/,
    ],
    ['an amount below any open quote', (p) => ({ ...p, accepted: { ...p.accepted, amount: '1' } }), /no open quote/],
    [
      'a network not configured here',
      (p) => ({ ...p, accepted: { ...p.accepted, network: 'eip155:1' } }),
      /network eip155:1/,
    ],
    [
      'a signature that does not match',
      (p) => ({ ...p, payload: { ...p.payload, signature: `0x${'11'.repeat(65)}` } }),
      /signature/,
    ],
    [
      'an asset that is not our USDC',
      (p) => ({ ...p, accepted: { ...p.accepted, asset: '0x0000000000000000000000000000000000000001' } }),
      /asset/,
    ],
    [
      'an authorization for less than the quote',
      (p) => ({
        ...p,
        payload: { ...p.payload, authorization: { ...(p.payload.authorization as object), value: '1' } },
      }),
      /invalid/,
    ],
  ];
  for (const [what, tamper, reason] of tampered) {
    it(`refuses ${what} with 402 and the reason, crediting nothing`, async () => {
      const body = expectProblem(await topUp({ 'payment-signature': await signed(tamper) }), 402, 'payment_required');
      assert.match(body.detail, reason);
      assert.equal(body.payment.intent, 'top_up');
      await assertNothingPaid();
    });
  }

  it('refuses an authorization whose validity window is over (the facilitator says so), crediting nothing', async () => {
    const refused = await topUp();
    const payload = await expired(
      await wallet.createPaymentPayload(decodePaymentRequiredHeader(String(refused.headers['payment-required']))),
    );
    const body = expectProblem(
      await topUp({ 'payment-signature': encodePaymentSignatureHeader(payload) }),
      402,
      'payment_required',
    );
    assert.match(body.detail, /valid_before/);
    await assertNothingPaid();
  });

  it('answers 402 and credits nothing when the facilitator does not answer in time', async () => {
    facilitator.mode = 'hang';
    try {
      const body = expectProblem(await topUp({ 'payment-signature': await signed() }), 402, 'payment_required');
      assert.match(body.detail, /facilitator did not answer/);
      await assertNothingPaid();
    } finally {
      facilitator.mode = 'ok';
    }
  });

  it('applies nothing when the settlement fails after verification', async () => {
    facilitator.mode = 'settle_fails';
    try {
      const body = expectProblem(await topUp({ 'payment-signature': await signed() }), 402, 'payment_required');
      assert.match(body.detail, /transaction_failed/);
      await assertNothingPaid();
    } finally {
      facilitator.mode = 'ok';
    }
  });
});

describe('x402: no facilitator to settle with', () => {
  it('answers 402 pointing to the card rail when the facilitator is unreachable or not configured', async () => {
    const down = await startFacilitator();
    await down.close();
    for (const env of [{ CELLGATE_X402_FACILITATOR_URL: down.url }, {}] as Record<string, string>[]) {
      const t = await startApp({ env: { CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO, ...env } });
      try {
        const org = await verifiedOrganization(t);
        const refused = await t.app.inject({
          method: 'POST',
          url: '/v1/cells',
          headers: org.headers,
          payload: { display_name: 'A' },
        });
        const payload = await wallet.createPaymentPayload(
          decodePaymentRequiredHeader(String(refused.headers['payment-required'])),
        );
        const retry = await t.app.inject({
          method: 'POST',
          url: '/v1/cells',
          headers: { ...org.headers, 'payment-signature': encodePaymentSignatureHeader(payload) },
          payload: { display_name: 'A' },
        });
        const body = expectProblem(retry, 402, 'payment_required');
        assert.match(body.detail, /facilitator did not answer|not configured/);
        assert.ok(body.payment.checkout_url, 'the card rail is offered instead');
        assert.deepEqual((await t.app.inject({ url: '/v1/cells', headers: org.headers })).json().cells, []);
      } finally {
        await t.close();
      }
    }
  });
});
