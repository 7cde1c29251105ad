import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, expectProblem, useApp, verifiedOrganization } from '../../../test/harness.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;
const UNKNOWN = 'org_01jdx4c5d6e7f8g9h0j1k2m3n4';

describe('operator billing actions with bad input', () => {
  let org: Org;
  const t = useApp();
  before(async () => {
    org = await verifiedOrganization(t);
  });

  const act = (action: string, payload: Record<string, unknown>, id = org.organizationId) =>
    t.app.inject({ method: 'POST', url: `/v1/admin/organizations/${id}/${action}`, headers: admin, payload });

  const cases: [string, string, Record<string, unknown>, string][] = [
    ['a credit without reason', 'credits', { amount_usd: '5.00' }, 'reason'],
    ['a credit of zero', 'credits', { amount_usd: '0', reason: 'x' }, 'amount_usd'],
    ['a negative credit', 'credits', { amount_usd: '-5.00', reason: 'x' }, 'amount_usd'],
    ['a credit with 3 decimals', 'credits', { amount_usd: '5.001', reason: 'x' }, 'amount_usd'],
    ['a credit with an exponent', 'credits', { amount_usd: '5e2', reason: 'x' }, 'amount_usd'],
    ['a credit as a number', 'credits', { amount_usd: 5, reason: 'x' }, 'amount_usd'],
    ['a grant of an unknown tier', 'grant', { tier: 'gold', months: 1, reason: 'x' }, 'tier'],
    ['a grant of zero months', 'grant', { tier: 'starter', months: 0, reason: 'x' }, 'months'],
    ['a grant of a fraction of a month', 'grant', { tier: 'starter', months: 1.5, reason: 'x' }, 'months'],
    ['a suspension with an empty reason', 'suspend', { reason: '' }, 'reason'],
    ['a reinstatement with an unknown field', 'reinstate', { reason: 'x', force: true }, 'force'],
  ];
  for (const [name, action, payload, field] of cases) {
    it(`answers 400 naming ${field} for ${name}`, async () => {
      const body = expectProblem(await act(action, payload), 400, 'invalid_request');
      assert.equal(body.errors?.[0]?.field, field, JSON.stringify(body));
    });
  }

  it('answers 404 for an unknown organization on every route', async () => {
    expectProblem(
      await t.app.inject({ method: 'GET', url: `/v1/admin/organizations/${UNKNOWN}`, headers: admin }),
      404,
      'not_found',
    );
    expectProblem(await act('suspend', { reason: 'x' }, UNKNOWN), 404, 'not_found');
    expectProblem(await act('reinstate', { reason: 'x' }, UNKNOWN), 404, 'not_found');
    expectProblem(await act('credits', { amount_usd: '5', reason: 'x' }, UNKNOWN), 404, 'not_found');
    expectProblem(await act('grant', { tier: 'pro', months: 1, reason: 'x' }, UNKNOWN), 404, 'not_found');
  });

  it('answers 409 conflict when reinstating an organization that is not suspended nor past due', async () => {
    expectProblem(await act('reinstate', { reason: 'x' }), 409, 'conflict');
  });

  it('answers 409 conflict when suspending twice, and records nothing for the refused action', async () => {
    assert.equal((await act('suspend', { reason: 'first' })).statusCode, 200);
    expectProblem(await act('suspend', { reason: 'second' }), 409, 'conflict');
    const actions = await t.database.db
      .selectFrom('billing_operator_actions')
      .select('reason')
      .where('organization_id', '=', org.organizationId)
      .execute();
    assert.deepEqual(
      actions.map((a) => a.reason),
      ['first'],
    );
  });

  it('answers 400 for an unknown state filter', async () => {
    expectProblem(
      await t.app.inject({ method: 'GET', url: '/v1/admin/organizations?state=bankrupt', headers: admin }),
      400,
      'invalid_request',
    );
  });
});
