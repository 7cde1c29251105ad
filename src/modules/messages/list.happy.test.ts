import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, atEpoch, expectProblem, startApp, type TestApp } from '../../../test/harness.ts';
import { activeLine, claim, inbound, queued, type Line } from '../../../test/support/messages.ts';

describe('listing messages', () => {
  let t: TestApp;
  let line: Line;
  const ids: Record<string, string> = {};
  let midpoint = '';

  before(async () => {
    t = await startApp();
    line = await activeLine(t);
    // Five messages a second apart: three outbound to A and B, two inbound from A.
    ids.outA1 = (await queued(t, line, { to: '+14155550101', body: 'a1' })).id;
    t.clock.advance(1000);
    ids.inA1 = (await inbound(t, line, { from: '+14155550101', body: 'hi' })).json().id;
    t.clock.advance(1000);
    midpoint = t.clock.now().toISOString();
    ids.outB1 = (await queued(t, line, { to: '+14155550102', body: 'b1' })).id;
    t.clock.advance(1000);
    ids.outA2 = (await queued(t, line, { to: '+14155550101', body: 'a2' })).id;
    t.clock.advance(1000);
    ids.inA2 = (await inbound(t, line, { from: '+14155550101', body: 'ok' })).json().id;
    await claim(t, line, '?limit=1'); // outA1 → sending
  });
  after(() => t.close());

  const list = (query = '') =>
    t.app.inject({ url: `/v1/cells/${line.cell.id}/messages${query}`, headers: line.org.headers });
  const idsOf = async (query: string) => {
    const response = await list(query);
    assert.equal(response.statusCode, 200, response.body);
    return response.json().messages.map((m: { id: string }) => m.id);
  };

  it('lists newest first and pages with next_cursor until null', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await list(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      const body = response.json();
      assert.ok(body.messages.length <= 2);
      seen.push(...body.messages.map((m: { id: string }) => m.id));
      cursor = body.next_cursor;
      pages += 1;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen, [ids.inA2, ids.outA2, ids.outB1, ids.inA1, ids.outA1]);
  });

  it('defaults to 50 per page and reports no next page', async () => {
    const body = (await list()).json();
    assert.equal(body.messages.length, 5);
    assert.equal(body.next_cursor, null);
  });

  it('filters by direction', async () => {
    assert.deepEqual(await idsOf('?direction=inbound'), [ids.inA2, ids.inA1]);
    assert.deepEqual(await idsOf('?direction=outbound'), [ids.outA2, ids.outB1, ids.outA1]);
  });

  it('filters by status', async () => {
    assert.deepEqual(await idsOf('?status=sending'), [ids.outA1]);
    assert.deepEqual(await idsOf('?status=queued'), [ids.outA2, ids.outB1]);
    assert.deepEqual(await idsOf('?status=delivered'), []);
  });

  it('filters by participant, in any E.164 spelling', async () => {
    assert.deepEqual(await idsOf(`?participant=${encodeURIComponent('+14155550101')}`), [
      ids.inA2,
      ids.outA2,
      ids.inA1,
      ids.outA1,
    ]);
    assert.deepEqual(await idsOf(`?participant=${encodeURIComponent('+1 415 555 0102')}`), [ids.outB1]);
    assert.deepEqual(await idsOf(`?participant=${encodeURIComponent('+14155550199')}`), []);
  });

  it('filters by since (inclusive) and combines filters with paging', async () => {
    assert.deepEqual(await idsOf(`?since=${midpoint}`), [ids.inA2, ids.outA2, ids.outB1]);
    assert.deepEqual(await idsOf(`?since=${midpoint}&direction=outbound&participant=%2B14155550101`), [ids.outA2]);
    const first = (await list(`?since=${midpoint}&limit=1`)).json();
    assert.deepEqual(
      first.messages.map((m: { id: string }) => m.id),
      [ids.inA2],
    );
    assert.deepEqual(await idsOf(`?since=${midpoint}&limit=5&cursor=${first.next_cursor}`), [ids.outA2, ids.outB1]);
    assert.deepEqual(await idsOf(`?since=${atEpoch(365 * 24 * 3600 * 1000)}`), []);
    assert.equal((await idsOf(`?since=${atEpoch(-365 * 24 * 3600 * 1000)}`)).length, 5);
  });

  it('rejects bad limits, cursors, filters and dates with 400', async () => {
    for (const query of [
      '?limit=0',
      '?limit=201',
      '?limit=abc',
      '?cursor=nope',
      '?direction=sideways',
      '?status=lost',
      '?since=yesterday',
      '?participant=12',
    ]) {
      expectProblem(await list(query), 400, 'invalid_request');
    }
    const body = expectProblem(await list('?participant=555'), 400, 'invalid_request');
    assert.deepEqual([body.errors[0].field, body.errors[0].code], ['participant', 'invalid_phone_number']);
  });

  it('does not show another organization the cell', async () => {
    const other = await activeOrganization(t);
    expectProblem(
      await t.app.inject({ url: `/v1/cells/${line.cell.id}/messages`, headers: other.headers }),
      404,
      'not_found',
    );
    expectProblem(
      await t.app.inject({ url: `/v1/cells/${line.cell.id}/messages/${ids.outA1}`, headers: other.headers }),
      404,
      'not_found',
    );
  });
});
