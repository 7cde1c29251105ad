import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, atEpoch, expectProblem, type TestApp } from '../../../test/harness.ts';
import { activeLine, inbound, type Line, queued, withLine } from '../../../test/support/messages.ts';

describe('conversations', () => {
  let t: TestApp;
  let line: Line;
  withLine((app, started) => {
    t = app;
    line = started;
  });

  const get = (url: string, headers = line.org.headers) => t.app.inject({ url, headers });

  it('keeps one conversation per participant for both directions', async () => {
    const out = await queued(t, line, { to: '+14155550201', body: 'hello' });
    const back = (await inbound(t, line, { from: '+14155550201', body: 'hi' })).json();
    const again = await queued(t, line, { to: '+1 415 555 0201', body: 'how are you' });
    assert.equal(back.conversation_id, out.conversation_id);
    assert.equal(again.conversation_id, out.conversation_id);
    const other = await queued(t, line, { to: '+14155550202', body: 'someone else' });
    assert.notEqual(other.conversation_id, out.conversation_id);
  });

  it('lists conversations by latest activity, paging on (last_message_at, id)', async () => {
    const fresh = await activeLine(t);
    const c1 = (await queued(t, fresh, { to: '+14155550211', body: '1' })).conversation_id;
    t.clock.advance(1000);
    const c2 = (await queued(t, fresh, { to: '+14155550212', body: '2' })).conversation_id;
    t.clock.advance(1000);
    const c3 = (await inbound(t, fresh, { from: '+14155550213', body: '3' })).json().conversation_id;
    t.clock.advance(1000);
    const latest = (await inbound(t, fresh, { from: '+14155550211', body: 'back to 1' })).json();
    const url = `/v1/cells/${fresh.cell.id}/conversations`;
    const all = (await get(url, fresh.org.headers)).json();
    assert.deepEqual(
      all.conversations.map((c: { id: string }) => c.id),
      [c1, c3, c2],
    );
    assert.equal(all.next_cursor, null);
    const top = all.conversations[0];
    assert.deepEqual(Object.keys(top).sort(), [
      'cell_id',
      'created_at',
      'id',
      'last_message_at',
      'last_message_id',
      'participant',
      'updated_at',
    ]);
    assert.equal(top.participant, '+14155550211');
    assert.equal(top.cell_id, fresh.cell.id);
    assert.equal(top.last_message_id, latest.id);
    assert.equal(top.last_message_at, latest.created_at);
    assert.equal(top.created_at, atEpoch());

    const first = (await get(`${url}?limit=2`, fresh.org.headers)).json();
    assert.deepEqual(
      first.conversations.map((c: { id: string }) => c.id),
      [c1, c3],
    );
    const second = (await get(`${url}?limit=2&cursor=${first.next_cursor}`, fresh.org.headers)).json();
    assert.deepEqual(
      second.conversations.map((c: { id: string }) => c.id),
      [c2],
    );
    assert.equal(second.next_cursor, null);
  });

  it('pages conversations that share a last_message_at by id', async () => {
    const fresh = await activeLine(t);
    const made = [];
    for (let i = 0; i < 5; i++)
      made.push((await queued(t, fresh, { to: `+1415555022${i}`, body: 'same ms' })).conversation_id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const body: { conversations: Array<{ id: string }>; next_cursor: string | null } = (
        await get(
          `/v1/cells/${fresh.cell.id}/conversations?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
          fresh.org.headers,
        )
      ).json();
      seen.push(...body.conversations.map((c: { id: string }) => c.id));
      cursor = body.next_cursor;
    } while (cursor);
    assert.deepEqual(seen, [...made].reverse());
  });

  it('between: the conversation and its latest messages, newest first', async () => {
    const fresh = await activeLine(t);
    const m1 = await queued(t, fresh, { to: '+14155550231', body: 'one' });
    t.clock.advance(1);
    const m2 = (await inbound(t, fresh, { from: '+14155550231', body: 'two' })).json();
    const response = await get(
      `/v1/conversations/between?cell_id=${fresh.cell.id}&participant=${encodeURIComponent('+14155550231')}`,
      fresh.org.headers,
    );
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.conversation.id, m1.conversation_id);
    assert.equal(body.conversation.participant, '+14155550231');
    assert.deepEqual(
      body.messages.map((m: { id: string }) => m.id),
      [m2.id, m1.id],
    );
  });

  it('between caps the messages at the latest 50', async () => {
    const fresh = await activeLine(t, { send_rate_per_minute: 30 });
    for (let i = 0; i < 55; i++) await queued(t, fresh, { to: '+14155550232', body: `n${i}` });
    const body = (
      await get(`/v1/conversations/between?cell_id=${fresh.cell.id}&participant=%2B14155550232`, fresh.org.headers)
    ).json();
    assert.equal(body.messages.length, 50);
    assert.equal(body.messages[0].body, 'n54');
  });

  it("between: 404 for a stranger, another organization's cell or an unknown cell; 400 for a bad number or missing query", async () => {
    expectProblem(
      await get(`/v1/conversations/between?cell_id=${line.cell.id}&participant=%2B14155550299`),
      404,
      'not_found',
    );
    const other = await activeOrganization(t);
    expectProblem(
      await get(`/v1/conversations/between?cell_id=${line.cell.id}&participant=%2B14155550201`, other.headers),
      404,
      'not_found',
    );
    expectProblem(
      await get('/v1/conversations/between?cell_id=cell_nope&participant=%2B14155550201'),
      404,
      'not_found',
    );
    const bad = expectProblem(
      await get(`/v1/conversations/between?cell_id=${line.cell.id}&participant=0201`),
      400,
      'invalid_request',
    );
    assert.equal(bad.errors[0].code, 'invalid_phone_number');
    expectProblem(await get(`/v1/conversations/between?cell_id=${line.cell.id}`), 400, 'invalid_request');
    expectProblem(await get('/v1/conversations/between?participant=%2B14155550201'), 400, 'invalid_request');
  });

  it('lists the messages of one conversation with paging', async () => {
    const fresh = await activeLine(t);
    const sent = [];
    for (let i = 0; i < 3; i++) sent.push(await queued(t, fresh, { to: '+14155550241', body: `c${i}` }));
    await queued(t, fresh, { to: '+14155550242', body: 'elsewhere' });
    const url = `/v1/cells/${fresh.cell.id}/conversations/${sent[0].conversation_id}/messages`;
    const first = (await get(`${url}?limit=2`, fresh.org.headers)).json();
    assert.deepEqual(
      first.messages.map((m: { id: string }) => m.id),
      [sent[2].id, sent[1].id],
    );
    const rest = (await get(`${url}?limit=2&cursor=${first.next_cursor}`, fresh.org.headers)).json();
    assert.deepEqual(
      rest.messages.map((m: { id: string }) => m.id),
      [sent[0].id],
    );
    assert.equal(rest.next_cursor, null);
    // The conversation belongs to that cell: not found through another cell, even of the same organization.
    const sibling = await activeLine(t, {}, fresh.org);
    expectProblem(
      await get(`/v1/cells/${sibling.cell.id}/conversations/${sent[0].conversation_id}/messages`, fresh.org.headers),
      404,
      'not_found',
    );
    expectProblem(
      await get(`/v1/cells/${fresh.cell.id}/conversations/conv_nope/messages`, fresh.org.headers),
      404,
      'not_found',
    );
    expectProblem(
      await get(`/v1/cells/${fresh.cell.id}/conversations?limit=0`, fresh.org.headers),
      400,
      'invalid_request',
    );
    expectProblem(
      await get(`/v1/cells/${fresh.cell.id}/conversations?cursor=bad`, fresh.org.headers),
      400,
      'invalid_request',
    );
  });
});
