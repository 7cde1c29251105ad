// Proofs of wallet control that must be refused: the signature of another message or by another
// key (400 invalid_signature), a malformed one (400 invalid_format), a wallet of another
// organization or none (404), and an address another organization verified (409).
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { base58 } from '@scure/base';
import { expectProblem, useApp, verifiedOrganization } from '../../../test/harness.ts';
import {
  baseKey,
  registerWallet,
  solanaKey,
  verifiedWallet,
  verifyWallet,
  type WalletKey,
} from '../../../test/support/wallets.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

describe('payer wallet verification: refused proofs', () => {
  let org: Org;
  let other: Org;
  const t = useApp();
  before(async () => {
    org = await verifiedOrganization(t);
    other = await verifiedOrganization(t);
  });

  async function claim(key: WalletKey, headers = org.headers) {
    const response = await registerWallet(t, headers, key);
    assert.equal(response.statusCode, 201, response.body);
    return response.json() as { wallet_id: string; verification: { status: string; message: string } };
  }

  const status = async (walletId: string) =>
    (await t.app.inject({ url: '/v1/billing/x402/wallets', headers: org.headers }))
      .json()
      .wallets.find((w: { wallet_id: string }) => w.wallet_id === walletId).verification.status;

  for (const [network, makeKey] of [
    ['base', baseKey],
    ['solana', solanaKey],
  ] as [string, () => WalletKey][]) {
    it(`answers 400 invalid_signature on ${network} for another message's signature or another key's, leaving the wallet unverified`, async () => {
      const key = makeKey();
      const wallet = await claim(key);
      const wrongMessage = await key.sign(wallet.verification.message.replace(/nonce: .*/, 'nonce: guessed'));
      const wrongKey = await makeKey().sign(wallet.verification.message);
      for (const signature of [wrongMessage, wrongKey]) {
        const body = expectProblem(
          await verifyWallet(t, org.headers, wallet.wallet_id, signature),
          400,
          'invalid_request',
        );
        assert.deepEqual([body.errors[0].field, body.errors[0].code], ['signature', 'invalid_signature']);
      }
      assert.equal(await status(wallet.wallet_id), 'unverified');
    });
  }

  it("refuses the signature of another organization's message for the same address", async () => {
    const key = baseKey();
    const theirs = await claim(key, other.headers);
    const mine = await claim(key);
    const body = expectProblem(
      await verifyWallet(t, org.headers, mine.wallet_id, await key.sign(theirs.verification.message)),
      400,
      'invalid_request',
    );
    assert.equal(body.errors[0].code, 'invalid_signature');
  });

  const malformed: [string, () => WalletKey, string][] = [
    ['base', baseKey, 'not a signature'],
    ['base', baseKey, `0x${'ab'.repeat(64)}`],
    ['base', baseKey, `0x${'zz'.repeat(65)}`],
    ['solana', solanaKey, base58.encode(new Uint8Array(63).fill(9))],
    ['solana', solanaKey, '0OIl'],
    ['solana', solanaKey, `0x${'ab'.repeat(64)}`],
  ];
  for (const [network, makeKey, signature] of malformed) {
    it(`answers 400 invalid_format on ${network} for the signature ${JSON.stringify(signature.slice(0, 20))}`, async () => {
      const wallet = await claim(makeKey());
      const body = expectProblem(
        await verifyWallet(t, org.headers, wallet.wallet_id, signature),
        400,
        'invalid_request',
      );
      assert.deepEqual([body.errors[0].field, body.errors[0].code], ['signature', 'invalid_format']);
    });
  }

  it('answers 400 for a missing or empty signature and an unknown field', async () => {
    const wallet = await claim(baseKey());
    const url = `/v1/billing/x402/wallets/${wallet.wallet_id}/verify`;
    for (const [payload, field] of [
      [{}, 'signature'],
      [{ signature: '' }, 'signature'],
      [{ signature: '0x00', proof: 'x' }, 'proof'],
    ] as const) {
      const body = expectProblem(
        await t.app.inject({ method: 'POST', url, headers: org.headers, payload }),
        400,
        'invalid_request',
      );
      assert.equal(body.errors[0].field, field);
    }
  });

  it("answers 404 for another organization's wallet and for an unknown one", async () => {
    const key = baseKey();
    const theirs = await claim(key, other.headers);
    const signature = await key.sign(theirs.verification.message);
    expectProblem(await verifyWallet(t, org.headers, theirs.wallet_id, signature), 404, 'not_found');
    expectProblem(await verifyWallet(t, org.headers, 'wal_01jdx4c5d6e7f8g9h0j1k2m3n4', signature), 404, 'not_found');
    const listed = (await t.app.inject({ url: '/v1/billing/x402/wallets', headers: other.headers }))
      .json()
      .wallets.find((w: { wallet_id: string }) => w.wallet_id === theirs.wallet_id);
    assert.equal(listed.verification.status, 'unverified');
  });

  it('answers 409 wallet_already_registered to register or verify an address another organization verified', async () => {
    const key = solanaKey();
    const mine = await claim(key);
    await verifiedWallet(t, other.headers, key);
    expectProblem(
      await verifyWallet(t, org.headers, mine.wallet_id, await key.sign(mine.verification.message)),
      409,
      'wallet_already_registered',
    );
    expectProblem(await registerWallet(t, org.headers, key), 409, 'wallet_already_registered');
    assert.equal(await status(mine.wallet_id), 'unverified');
  });

  it('lets one of two organizations proving the same address at once through: the other is 409', async () => {
    const key = baseKey();
    const mine = await claim(key);
    const theirs = await claim(key, other.headers);
    const answers = await Promise.all([
      verifyWallet(t, org.headers, mine.wallet_id, await key.sign(mine.verification.message)),
      verifyWallet(t, other.headers, theirs.wallet_id, await key.sign(theirs.verification.message)),
    ]);
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 409]);
    const verified = await t.database.db
      .selectFrom('x402_wallets')
      .select('organization_id')
      .where('address', '=', key.address)
      .where('verified_at', 'is not', null)
      .execute();
    assert.equal(verified.length, 1);
  });
});
