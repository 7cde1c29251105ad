// Payer wallets are proven, not just claimed: registration answers an unverified wallet with the
// message to sign; its signature (EIP-191 on Base, ed25519 on Solana, real keys) verifies it. The
// first organization to claim an address does not get it: only the one that signs does, and
// deposits from it are credited to that organization alone.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, verifiedOrganization } from '../../../test/harness.ts';
import { BOTH_NETWORKS } from '../../../test/support/billing.ts';
import { deposit, SECRET } from '../../../test/support/deposits.ts';
import { baseKey, registerWallet, solanaKey, verifyWallet, type WalletKey } from '../../../test/support/wallets.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

describe('payer wallet verification', () => {
  let org: Org;
  const t = useApp({ env: { ...BOTH_NETWORKS, CELLGATE_X402_DEPOSIT_SECRET: SECRET } });
  before(async () => {
    org = await verifiedOrganization(t);
  });

  const list = async (headers = org.headers) =>
    (await t.app.inject({ url: '/v1/billing/x402/wallets', headers })).json().wallets;

  it('registers a wallet unverified, with a message binding the organization, network, address and a random nonce', async () => {
    const key = baseKey();
    const response = await registerWallet(t, org.headers, key);
    assert.equal(response.statusCode, 201);
    const { verification } = response.json();
    assert.equal(verification.status, 'unverified');
    const lines = verification.message.split('\n');
    assert.deepEqual(lines.slice(0, 4), [
      'Cellgate wallet verification',
      `organization: ${org.organizationId}`,
      'network: base',
      `address: ${key.address}`,
    ]);
    assert.match(lines[4], /^nonce: [A-Za-z0-9_-]{24}$/);
    // Another organization claiming the same address gets its own message, with another nonce.
    const other = await verifiedOrganization(t);
    const theirs = (await registerWallet(t, other.headers, key)).json().verification.message;
    assert.notEqual(theirs.split('\n')[4], lines[4]);
    assert.match(theirs, new RegExp(`organization: ${other.organizationId}`));
  });

  for (const [network, makeKey] of [
    ['base', baseKey],
    ['solana', solanaKey],
  ] as [string, () => WalletKey][]) {
    it(`verifies a ${network} wallet with its key's signature of the message, and again idempotently`, async () => {
      const key = makeKey();
      const wallet = (await registerWallet(t, org.headers, key)).json();
      const signature = await key.sign(wallet.verification.message);
      const verified = await verifyWallet(t, org.headers, wallet.wallet_id, signature);
      assert.equal(verified.statusCode, 200, verified.body);
      assert.deepEqual(verified.json(), {
        ...wallet,
        verification: {
          status: 'verified',
          message: wallet.verification.message,
          verified_at: t.clock.now().toISOString(),
        },
      });
      const again = await verifyWallet(t, org.headers, wallet.wallet_id, signature);
      assert.equal(again.statusCode, 200);
      assert.deepEqual(again.json(), verified.json());
      const listed = (await list()).find((w: { wallet_id: string }) => w.wallet_id === wallet.wallet_id);
      assert.equal(listed.verification.status, 'verified');
      // Registering it again answers the verified wallet.
      const repeat = await registerWallet(t, org.headers, key);
      assert.equal(repeat.statusCode, 200);
      assert.equal(repeat.json().verification.status, 'verified');
    });
  }

  it('gives a squatted address to the organization that proves it: the squatter is refused after, and deposits go to the owner', async () => {
    const key = baseKey();
    const squatter = await verifiedOrganization(t);
    const owner = await verifiedOrganization(t);
    const squat = await registerWallet(t, squatter.headers, key);
    assert.equal(squat.statusCode, 201);
    // The unverified claim does not block the real owner.
    const claim = await registerWallet(t, owner.headers, key);
    assert.equal(claim.statusCode, 201, claim.body);
    const verified = await verifyWallet(
      t,
      owner.headers,
      claim.json().wallet_id,
      await key.sign(claim.json().verification.message),
    );
    assert.equal(verified.statusCode, 200, verified.body);
    // The squatter's claim stays unverified and receives nothing.
    assert.equal((await list(squatter.headers))[0].verification.status, 'unverified');
    const paid = await deposit(t, { from: key.address, amount: '7000000' });
    assert.deepEqual([paid.json().status, paid.json().organization_id], ['credited', owner.organizationId]);
    const balance = async (o: Org) =>
      (await t.app.inject({ url: '/v1/billing/status', headers: o.headers })).json().prepaid_balance_usd;
    assert.deepEqual([await balance(owner), await balance(squatter)], [7, 0]);
  });

  it('frees the address when its verified owner removes the wallet: another organization may then prove it', async () => {
    const key = solanaKey();
    const first = await verifiedOrganization(t);
    const second = await verifiedOrganization(t);
    const mine = (await registerWallet(t, first.headers, key)).json();
    assert.equal(
      (await verifyWallet(t, first.headers, mine.wallet_id, await key.sign(mine.verification.message))).statusCode,
      200,
    );
    assert.equal(
      (
        await t.app.inject({
          method: 'DELETE',
          url: `/v1/billing/x402/wallets/${mine.wallet_id}`,
          headers: first.headers,
        })
      ).statusCode,
      204,
    );
    const theirs = await registerWallet(t, second.headers, key);
    assert.equal(theirs.statusCode, 201, theirs.body);
    assert.equal(
      (
        await verifyWallet(
          t,
          second.headers,
          theirs.json().wallet_id,
          await key.sign(theirs.json().verification.message),
        )
      ).statusCode,
      200,
    );
  });
});
