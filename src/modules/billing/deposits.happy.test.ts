// Deposits to our pay_to address, reported by the processor's signed webhook: credited once to the
// organization that verified the sending wallet (as its open quote of exactly that amount, else
// a top_up), or held for the operator to assign: a wallet only claimed (unverified) gets nothing.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, expectProblem, useApp, verifiedOrganization } from '../../../test/harness.ts';
import { deposit, SECRET, STRANGER, WALLET_KEY } from '../../../test/support/deposits.ts';
import { baseKey, registerWallet, verifiedWallet } from '../../../test/support/wallets.ts';
import { BASE_PAY_TO } from '../../../test/support/billing.ts';
import { eventsOf } from '../../../test/support/cells.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

describe('x402 deposits', () => {
  let org: Org;
  const status = async () => (await t.app.inject({ url: '/v1/billing/status', headers: org.headers })).json();
  const t = useApp({ env: { CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO, CELLGATE_X402_DEPOSIT_SECRET: SECRET } });
  before(async () => {
    org = await verifiedOrganization(t);
    assert.equal((await verifiedWallet(t, org.headers, WALLET_KEY)).verification.status, 'verified');
  });

  it('credits a deposit from a verified wallet as a top-up, once per deposit id', async () => {
    const first = await deposit(t, { deposit_id: 'proc-1' });
    assert.equal(first.statusCode, 201, first.body);
    assert.deepEqual(
      [first.json().status, first.json().organization_id, first.json().amount_usd],
      ['credited', org.organizationId, '25.00'],
    );
    assert.equal((await status()).prepaid_balance_usd, 25);
    const again = await deposit(t, { deposit_id: 'proc-1' });
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().id, first.json().id);
    assert.equal((await status()).prepaid_balance_usd, 25);
    const [paid] = await eventsOf(t, 'billing.payment_succeeded');
    assert.deepEqual([paid.data.rail, paid.data.intent, paid.data.amount_usd], ['x402', 'top_up', '25.00']);
  });

  it("applies a deposit that matches an open quote exactly as that quote's intent", async () => {
    const refused = await t.app.inject({
      method: 'POST',
      url: '/v1/cells',
      headers: org.headers,
      payload: { display_name: 'A' },
    });
    assert.equal(refused.statusCode, 402);
    assert.equal(refused.json().payment.intent, 'setup');
    const paid = await deposit(t, { amount: '20000000' });
    assert.equal(paid.json().status, 'credited');
    const billing = await status();
    assert.deepEqual([billing.state, billing.tier, billing.prepaid_balance_usd], ['active', 'starter', 25]);
  });

  it('holds a deposit from an unknown wallet for the operator, who assigns it once', async () => {
    const held = await deposit(t, { from: STRANGER, amount: '5000000' });
    assert.equal(held.statusCode, 201);
    assert.deepEqual([held.json().status, held.json().organization_id], ['held', null]);
    const list = (await t.app.inject({ url: '/v1/admin/deposits?status=held', headers: admin })).json();
    assert.deepEqual(
      list.deposits.map((d: { id: string }) => d.id),
      [held.json().id],
    );
    const assigned = await t.app.inject({
      method: 'POST',
      url: `/v1/admin/deposits/${held.json().id}/assign`,
      headers: admin,
      payload: { organization_id: org.organizationId },
    });
    assert.equal(assigned.statusCode, 200, assigned.body);
    assert.deepEqual([assigned.json().status, assigned.json().organization_id], ['credited', org.organizationId]);
    assert.equal((await status()).prepaid_balance_usd, 30);
    const twice = await t.app.inject({
      method: 'POST',
      url: `/v1/admin/deposits/${held.json().id}/assign`,
      headers: admin,
      payload: { organization_id: org.organizationId },
    });
    expectProblem(twice, 409, 'conflict');
    assert.equal((await status()).prepaid_balance_usd, 30);
  });

  it('holds a deposit from a wallet an organization claimed but never verified', async () => {
    const squatted = baseKey();
    const squatter = await verifiedOrganization(t);
    assert.equal((await registerWallet(t, squatter.headers, squatted)).statusCode, 201);
    const held = await deposit(t, { from: squatted.address, amount: '5000000' });
    assert.equal(held.statusCode, 201);
    assert.deepEqual([held.json().status, held.json().organization_id], ['held', null]);
    assert.equal(
      (await t.app.inject({ url: '/v1/billing/status', headers: squatter.headers })).json().prepaid_balance_usd,
      0,
    );
  });
});
