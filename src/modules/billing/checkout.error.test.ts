import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, useApp, verifiedOrganization } from '../../../test/harness.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

describe('card checkout with bad input', () => {
  let org: Org;
  const t = useApp();
  before(async () => {
    org = await verifiedOrganization(t);
  });

  const start = (payload: Record<string, unknown>, headers: Record<string, string> = org.headers) =>
    t.app.inject({ method: 'POST', url: '/v1/billing/checkout', headers, payload });

  const cases: [string, Record<string, unknown>, string][] = [
    ['no intent', {}, 'intent'],
    ['an unknown intent', { intent: 'gift' }, 'intent'],
    ['an unknown tier', { intent: 'setup', tier: 'gold' }, 'tier'],
    ['a top_up without amount', { intent: 'top_up' }, 'amount_usd'],
    ['a top_up below the minimum', { intent: 'top_up', amount_usd: '1.00' }, 'amount_usd'],
    ['a negative amount', { intent: 'top_up', amount_usd: -10 }, 'amount_usd'],
    ['an amount with 3 decimals', { intent: 'top_up', amount_usd: '10.001' }, 'amount_usd'],
    ['an amount with an exponent', { intent: 'top_up', amount_usd: '1e3' }, 'amount_usd'],
    ['an unknown field', { intent: 'setup', client_id: 'x' }, 'client_id'],
  ];
  for (const [name, payload, field] of cases) {
    it(`answers 400 naming ${field} for ${name}`, async () => {
      const body = expectProblem(await start(payload), 400, 'invalid_request');
      assert.equal(body.errors?.[0]?.field, field, JSON.stringify(body));
    });
  }

  it("answers 404 for the renewal of another organization's cell and 409 for a reinstate with nothing due", async () => {
    expectProblem(await start({ intent: 'renewal', cell_id: 'cell_01jdx4c5d6e7f8g9h0j1k2m3n4' }), 404, 'not_found');
    expectProblem(await start({ intent: 'reinstate' }), 409, 'conflict');
  });

  it('answers 401 without a credential', async () => {
    expectProblem(await start({ intent: 'setup' }, {}), 401, 'unauthenticated');
  });

  it('answers 400 for a checkout page without its token', async () => {
    const { payment_id: paymentId } = (await start({ intent: 'setup' })).json();
    expectProblem(
      await t.app.inject({ method: 'GET', url: `/v1/billing/checkout/${paymentId}` }),
      400,
      'invalid_request',
    );
  });
});
