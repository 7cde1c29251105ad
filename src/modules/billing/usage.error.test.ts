import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, useApp, verifiedOrganization } from '../../../test/harness.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

describe('usage reads with bad input', () => {
  let org: Org;
  const t = useApp();
  before(async () => {
    org = await verifiedOrganization(t);
  });

  const cases: [string, string, string][] = [
    ['a from that is not a date', '/v1/usage/summary?from=yesterday', 'from'],
    ['a to that is not a date', '/v1/usage/daily?to=2026-13-45', 'to'],
    ['a from after to', '/v1/usage/summary?from=2026-11-02&to=2026-11-01', 'from'],
    ['a from equal to to', '/v1/usage/records?from=2026-11-01&to=2026-11-01', 'from'],
    ['an unknown type', '/v1/usage/records?type=fax', 'type'],
    ['a page size of 0', '/v1/usage/records?limit=0', 'limit'],
    ['a forged cursor', '/v1/usage/records?cursor=abc', 'cursor'],
  ];
  for (const [name, url, field] of cases) {
    it(`answers 400 naming ${field} for ${name}`, async () => {
      const body = expectProblem(
        await t.app.inject({ method: 'GET', url, headers: org.headers }),
        400,
        'invalid_request',
      );
      assert.equal(body.errors?.[0]?.field, field, JSON.stringify(body));
    });
  }
});
