import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, expectProblem, signUp, useApp, verifiedOrganization } from '../../../test/harness.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

describe('billing and usage routes and credentials', () => {
  let org: Org;
  let other: Org;
  const t = useApp();
  before(async () => {
    org = await verifiedOrganization(t);
    other = await verifiedOrganization(t);
  });

  const routes: [string, string][] = [
    ['GET', '/v1/billing/status'],
    ['GET', '/v1/billing/payment-options'],
    ['GET', '/v1/billing/x402/requirements?intent=setup'],
    ['GET', '/v1/billing/x402/wallets'],
    ['GET', '/v1/usage/summary'],
    ['GET', '/v1/usage/records'],
    ['GET', '/v1/usage/daily'],
  ];
  for (const [method, url] of routes) {
    it(`answers 401 to ${method} ${url} without a credential`, async () => {
      const response = await t.app.inject({ method: method as 'GET', url });
      expectProblem(response, 401, 'unauthenticated');
      assert.match(String(response.headers['www-authenticate']), /^Bearer/);
    });
  }

  it('answers 401 to the admin token on customer billing routes', async () => {
    expectProblem(
      await t.app.inject({ method: 'GET', url: '/v1/billing/status', headers: admin }),
      401,
      'unauthenticated',
    );
  });

  it('lets an unverified organization read its billing status, quotes and wallets, not register wallets', async () => {
    const unverified = await signUp(t);
    const headers = { authorization: `Bearer ${unverified.apiKey}` };
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/billing/status', headers })).statusCode, 200);
    const wallets = await t.app.inject({ method: 'GET', url: '/v1/billing/x402/wallets', headers });
    assert.equal(wallets.statusCode, 200, wallets.body);
    assert.deepEqual(wallets.json(), { wallets: [], next_cursor: null });
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/v1/billing/x402/requirements?intent=setup', headers })).statusCode,
      200,
    );
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/billing/x402/wallets',
        headers,
        payload: { network: 'solana', address: '11111111111111111111111111111111' },
      }),
      403,
      'organization_unverified',
    );
  });

  it("never lists nor removes another organization's wallet", async () => {
    const wallet = (
      await t.app.inject({
        method: 'POST',
        url: '/v1/billing/x402/wallets',
        headers: other.headers,
        payload: { network: 'solana', address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' },
      })
    ).json();
    assert.deepEqual(
      (await t.app.inject({ method: 'GET', url: '/v1/billing/x402/wallets', headers: org.headers })).json().wallets,
      [],
    );
    expectProblem(
      await t.app.inject({
        method: 'DELETE',
        url: `/v1/billing/x402/wallets/${wallet.wallet_id}`,
        headers: org.headers,
      }),
      404,
      'not_found',
    );
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/v1/billing/x402/wallets', headers: other.headers })).json().wallets
        .length,
      1,
    );
  });

  const adminRoutes: [string, string, Record<string, unknown> | undefined][] = [
    ['GET', '/v1/admin/organizations', undefined],
    ['GET', '/v1/admin/organizations/ORG', undefined],
    ['POST', '/v1/admin/organizations/ORG/suspend', { reason: 'x' }],
    ['POST', '/v1/admin/organizations/ORG/reinstate', { reason: 'x' }],
    ['POST', '/v1/admin/organizations/ORG/credits', { amount_usd: '100.00', reason: 'x' }],
    ['POST', '/v1/admin/organizations/ORG/grant', { tier: 'pro', months: 12, reason: 'x' }],
  ];
  for (const [method, path, payload] of adminRoutes) {
    it(`answers 403 to an agent key and 401 without a credential on ${method} ${path}`, async () => {
      const url = path.replace('ORG', org.organizationId);
      expectProblem(
        await t.app.inject({ method: method as 'GET', url, headers: org.headers, payload }),
        403,
        'forbidden',
      );
      expectProblem(await t.app.inject({ method: method as 'GET', url, payload }), 401, 'unauthenticated');
    });
  }

  it('leaves the organization unchanged after an agent tried the operator routes', async () => {
    const status = (await t.app.inject({ method: 'GET', url: '/v1/billing/status', headers: org.headers })).json();
    assert.equal(status.state, 'inactive');
    assert.equal(status.prepaid_balance_usd, 0);
  });
});
