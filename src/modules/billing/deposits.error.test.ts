// Deposit webhooks and operator calls that must be refused: unsigned, forged, stale, not ours,
// malformed, unknown ids, the wrong credential, and the webhook when it is not configured.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, expectProblem, startApp, verifiedOrganization, useApp } from '../../../test/harness.ts';
import { BASE_PAY_TO } from '../../../test/support/billing.ts';
import { deposit, SECRET, STRANGER } from '../../../test/support/deposits.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

describe('x402 deposits: bad webhooks and operator calls', () => {
  const t = useApp({ env: { CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO, CELLGATE_X402_DEPOSIT_SECRET: SECRET } });
  let org: Org;
  before(async () => {
    org = await verifiedOrganization(t);
  });

  it('refuses a missing, forged or stale signature with 400, recording nothing', async () => {
    const before = (await t.app.inject({ url: '/v1/admin/deposits', headers: admin })).json().deposits.length;
    for (const sign of [
      { header: '' },
      { secret: 'another-secret-0123456789' },
      { at: Math.floor(t.clock.now().getTime() / 1000) - 301 },
      { header: 't=1,v1=zz' },
    ]) {
      const body = expectProblem(await deposit(t, {}, sign), 400, 'invalid_request');
      assert.equal(body.errors[0].field, 'X-Cellgate-Signature');
    }
    assert.equal((await t.app.inject({ url: '/v1/admin/deposits', headers: admin })).json().deposits.length, before);
  });

  it('refuses a deposit to another address, from a malformed one or on an unconfigured network with 400 naming the field', async () => {
    for (const [body, field] of [
      [{ to: STRANGER }, 'to'],
      [{ from: '0x123' }, 'from'],
      [{ network: 'solana' }, 'network'],
      [{ amount: '-5' }, 'amount'],
    ] as const) {
      const problem = expectProblem(await deposit(t, body), 400, 'invalid_request');
      assert.equal(problem.errors[0].field, field, JSON.stringify(problem));
    }
  });

  it('answers 404 for an unknown deposit or organization, and 403 to an agent key', async () => {
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/admin/deposits/dep_01jdx4c5d6e7f8g9h0j1k2m3n4/assign',
        headers: admin,
        payload: { organization_id: org.organizationId },
      }),
      404,
      'not_found',
    );
    const held = (await deposit(t, { from: STRANGER })).json();
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: `/v1/admin/deposits/${held.id}/assign`,
        headers: admin,
        payload: { organization_id: 'org_01jdx4c5d6e7f8g9h0j1k2m3n4' },
      }),
      404,
      'not_found',
    );
    expectProblem(await t.app.inject({ url: '/v1/admin/deposits', headers: org.headers }), 403, 'forbidden');
  });
});

describe('x402 deposits without a secret', () => {
  it('answers 404: the webhook is off', async () => {
    const t = await startApp({ env: { CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO } });
    try {
      expectProblem(await deposit(t, {}), 404, 'not_found');
    } finally {
      await t.close();
    }
  });
});
