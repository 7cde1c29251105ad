import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, expectProblem, useApp } from '../../../test/harness.ts';
import { activeLine, type Line } from '../../../test/support/messages.ts';

describe('verification codes: bad requests', () => {
  const t = useApp();
  let line: Line;
  before(async () => {
    line = await activeLine(t);
  });

  const codes = (query: string, headers = line.org.headers, cellId = line.cell.id) =>
    t.app.inject({ url: `/v1/cells/${cellId}/codes${query}`, headers });

  it('refuses wait out of 0-30 and not an integer', async () => {
    for (const query of ['?wait=31', '?wait=-1', '?wait=1.5', '?wait=x', '?wait=3600']) {
      const body = expectProblem(await codes(query), 400, 'invalid_request');
      assert.equal(body.errors[0].field, 'wait', query);
    }
  });

  it('refuses a since that is neither a time with offset nor a message id', async () => {
    for (const since of [
      'yesterday',
      '2026-11-21',
      '2026-11-21T12:00:00',
      '2026-13-40T99:00:00Z',
      'msg_zzz',
      'msg_8zzzzzzzzz',
    ]) {
      const body = expectProblem(await codes(`?since=${encodeURIComponent(since)}`), 400, 'invalid_request');
      assert.deepEqual([body.errors[0].field, body.errors[0].code], ['since', 'invalid_format'], since);
    }
  });

  it('refuses a bad limit, a forged cursor and an unknown parameter', async () => {
    for (const query of ['?limit=0', '?limit=201', '?cursor=forged', '?participant=%2B14155550123'])
      expectProblem(await codes(query), 400, 'invalid_request');
  });

  it("answers 404 for an unknown cell and for another organization's cell, also with wait", async () => {
    expectProblem(await codes('', line.org.headers, 'cell_01jdx2b7c8d9e0f1g2h3j4k5m6'), 404, 'not_found');
    const other = await activeOrganization(t);
    expectProblem(await codes('', other.headers), 404, 'not_found');
    const started = Date.now();
    expectProblem(await codes('?wait=30', other.headers), 404, 'not_found');
    assert.ok(Date.now() - started < 2000, 'a foreign cell is refused before any wait');
  });

  it('refuses a request without a credential', async () => {
    expectProblem(await codes('', {}), 401, 'unauthenticated');
  });
});
