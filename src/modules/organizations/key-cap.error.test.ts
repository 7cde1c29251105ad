// The cap on active API keys (100 per organization): the 101st create is 409 `conflict`, revoked
// keys do not count, concurrent creates at the edge never overshoot, other organizations are free.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, useApp, verifiedOrganization } from '../../../test/harness.ts';
import { MAX_ACTIVE_KEYS } from './service.ts';

describe('API keys: at most 100 active per organization', () => {
  const t = useApp();

  const create = (headers: Record<string, string>) =>
    t.app.inject({ method: 'POST', url: '/v1/auth/keys', headers, payload: {} });
  const activeCount = async (headers: Record<string, string>) => {
    let count = 0;
    let cursor: string | null = null;
    do {
      const page: { statusCode: number; body: string; json(): { keys: unknown[]; next_cursor: string | null } } =
        await t.app.inject({ url: `/v1/auth/keys?limit=200${cursor ? `&cursor=${cursor}` : ''}`, headers });
      assert.equal(page.statusCode, 200, page.body);
      count += page.json().keys.length;
      cursor = page.json().next_cursor;
    } while (cursor);
    return count;
  };

  /** Creates keys until the organization holds `count` active ones (the sign-up key is the first). */
  async function fillTo(headers: Record<string, string>, count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let held = await activeCount(headers); held < count; held++) {
      const response = await create(headers);
      assert.equal(response.statusCode, 201, response.body);
      ids.push(response.json().id);
    }
    return ids;
  }

  it('creates the 100th key, refuses the 101st with 409 conflict naming the cap, and creates again after a revoke', async () => {
    const org = await verifiedOrganization(t);
    const ids = await fillTo(org.headers, MAX_ACTIVE_KEYS);
    assert.equal(await activeCount(org.headers), 100);
    const refused = expectProblem(await create(org.headers), 409, 'conflict');
    assert.match(refused.detail, /100 active API keys/);
    assert.match(refused.detail, /revoke one/);
    assert.equal(await activeCount(org.headers), 100, 'the refused create stored nothing');

    // Another organization is not affected.
    const other = await verifiedOrganization(t);
    assert.equal((await create(other.headers)).statusCode, 201);

    // A revoked key no longer counts.
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/v1/auth/keys/${ids[0]}`, headers: org.headers })).statusCode,
      204,
    );
    assert.equal((await create(org.headers)).statusCode, 201);
    expectProblem(await create(org.headers), 409, 'conflict');
  });

  it('lets exactly the free places through when creates race at the cap', async () => {
    const org = await verifiedOrganization(t);
    await fillTo(org.headers, MAX_ACTIVE_KEYS - 2);
    const statuses = (await Promise.all(Array.from({ length: 6 }, () => create(org.headers)))).map((r) => r.statusCode);
    assert.deepEqual(statuses.sort(), [201, 201, 409, 409, 409, 409]);
    assert.equal(await activeCount(org.headers), 100);
  });
});
