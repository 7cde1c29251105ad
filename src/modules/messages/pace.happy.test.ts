// RateLimit-* headers on sends (issue 26 §2): the cell's pace, so an agent can plan a burst.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../../../test/harness.ts';
import { activeLine, claim, inbound, send, type Line } from '../../../test/support/messages.ts';

const pace = (response: { headers: Record<string, unknown> }) => [
  response.headers['ratelimit-limit'],
  response.headers['ratelimit-remaining'],
  response.headers['ratelimit-reset'],
];

describe('RateLimit headers of sends', () => {
  let t: TestApp;
  let line: Line;
  before(async () => {
    t = await startApp();
    line = await activeLine(t, { send_rate_per_minute: 3 });
  });
  after(() => t.close());

  it('counts the queue and the claims of the last minute against the phone’s rate', async () => {
    assert.deepEqual(pace(await send(t, line, { to: '+14155550101', body: '1' })), ['3', '2', '0']);
    assert.deepEqual(pace(await send(t, line, { to: '+14155550101', body: '2' })), ['3', '1', '0']);
    // The queue fills the minute: it goes out as the phone claims, and nothing more for 60 s.
    assert.deepEqual(pace(await send(t, line, { to: '+14155550101', body: '3' })), ['3', '0', '60']);
    assert.equal((await claim(t, line)).length, 3);
    // Three claimed just now, one queued: the window frees in 60 s.
    assert.deepEqual(pace(await send(t, line, { to: '+14155550101', body: '4' })), ['3', '0', '60']);
    t.clock.advance(61_000);
    // The claims left the window; two queued: one more fits.
    assert.deepEqual(pace(await send(t, line, { to: '+14155550101', body: '5' })), ['3', '1', '0']);
  });

  it('speaks SMS segments, as the phone’s limits do', async () => {
    const phone = await activeLine(t, { send_rate_per_minute: 5 });
    // 161 GSM-7 characters: two segments.
    const long = await send(t, phone, { to: '+14155550101', body: 'x'.repeat(161) });
    assert.equal(long.json().segments, 2);
    assert.deepEqual(pace(long), ['5', '3', '0']);
  });

  it('shows the day’s room when the daily limit binds, and when its oldest claim leaves', async () => {
    const capped = await activeLine(t, { send_rate_per_minute: 5, daily_send_limit: 2 });
    assert.deepEqual(pace(await send(t, capped, { to: '+14155550101', body: '1' })), ['5', '1', '0']);
    assert.equal((await claim(t, capped)).length, 1);
    t.clock.advance(61_000);
    // One segment of the day left, one queued: nothing more today until the claim is a day old.
    const day = 24 * 60 * 60;
    assert.deepEqual(pace(await send(t, capped, { to: '+14155550101', body: '2' })), ['5', '0', String(day - 61)]);
  });

  it('counts no more of the queue than a minute of the phone’s rate: a deep queue costs nothing more', async () => {
    const slow = await activeLine(t, { send_rate_per_minute: 1 });
    let last = await send(t, slow, { to: '+14155550101', body: '1' });
    assert.deepEqual(pace(last), ['1', '0', '60']);
    for (let i = 2; i <= 30; i++) last = await send(t, slow, { to: '+14155550101', body: String(i) });
    assert.equal(last.statusCode, 202);
    assert.deepEqual(pace(last), ['1', '0', '60'], 'thirty queued: still nothing this minute, ask again in one');
  });

  it('puts them on replies too, and not on refused sends', async () => {
    const other = await activeLine(t, { send_rate_per_minute: 10 });
    const original = (await inbound(t, other, { from: '+14155550123', body: 'hi' })).json();
    const reply = await t.app.inject({
      method: 'POST',
      url: `/v1/cells/${other.cell.id}/messages/${original.id}/reply`,
      headers: other.org.headers,
      payload: { body: 'hello' },
    });
    assert.equal(reply.statusCode, 202);
    assert.deepEqual(pace(reply), ['10', '9', '0']);
    const refused = await send(t, other, { to: '+14155550123', body: '' });
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.headers['ratelimit-limit'], undefined);
  });
});

describe('RateLimit headers of sends under a per-credential request limit', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp({ env: { CELLGATE_RATE_LIMIT: '1', CELLGATE_RATE_LIMIT_BURST: '25' } });
  });
  after(() => t.close());

  it('advertises the more restrictive of the two', async () => {
    const slow = await activeLine(t, { send_rate_per_minute: 2 });
    const paced = await send(t, slow, { to: '+14155550101', body: '1' });
    assert.deepEqual(pace(paced), ['2', '1', '0'], 'the pace: 1 of 2 left, against more requests left');
    const fast = await activeLine(t, { send_rate_per_minute: 30 });
    const limited = await send(t, fast, { to: '+14155550101', body: '1' });
    assert.equal(limited.headers['ratelimit-limit'], '25', 'the request budget: fewer left than 29 of 30');
    assert.ok(Number(limited.headers['ratelimit-remaining']) < 25);
  });
});
