// Pacing in SMS segments (contract §11, issue 25 §3): a claim never hands a phone more segments
// than send_rate_per_minute in any 60 s, nor more than daily_send_limit in 24 hours; texts go out
// in order, and a text longer than the whole minute budget goes out alone in an empty minute.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, startApp, type TestApp } from '../../../test/harness.ts';
import { activeLine, claim, queued, type Line } from '../../../test/support/messages.ts';
import { withinPacing } from '../messages/delivery.ts';

const FOUR_SEGMENTS = 'a'.repeat(460); // GSM-7: 153 per part, so 460 septets are 4 parts
const TWO_UCS2_SEGMENTS = '🙂'.repeat(36); // 72 UTF-16 units (a surrogate pair each): over 70, so 2 parts
const MINUTE = 60_000;

async function text(t: TestApp, line: Line, body: string) {
  return (await queued(t, line, { to: '+14155550123', body })) as { id: string; segments: number };
}

describe('withinPacing (pure)', () => {
  const c = (id: string, segments: number) => ({ id, segments });
  it('takes the oldest texts while both windows have room, and stops at the first that does not fit', () => {
    assert.deepEqual(
      withinPacing([c('a', 4), c('b', 4), c('c', 1)], { minuteLeft: 8, minuteEmpty: false, dayLeft: 100 }),
      ['a', 'b'],
    );
    assert.deepEqual(withinPacing([c('a', 4), c('b', 1)], { minuteLeft: 3, minuteEmpty: false, dayLeft: 100 }), []);
    assert.deepEqual(withinPacing([c('a', 2), c('b', 2)], { minuteLeft: 30, minuteEmpty: true, dayLeft: 3 }), ['a']);
  });
  it('hands a text longer than the minute budget alone, and only in an empty minute', () => {
    assert.deepEqual(withinPacing([c('a', 24), c('b', 1)], { minuteLeft: 10, minuteEmpty: true, dayLeft: 300 }), ['a']);
    assert.deepEqual(withinPacing([c('a', 24)], { minuteLeft: 9, minuteEmpty: false, dayLeft: 300 }), []);
    assert.deepEqual(withinPacing([c('a', 24)], { minuteLeft: 10, minuteEmpty: true, dayLeft: 20 }), []);
  });
  it('hands nothing when a window is spent', () => {
    assert.deepEqual(withinPacing([c('a', 1)], { minuteLeft: 0, minuteEmpty: false, dayLeft: 10 }), []);
    assert.deepEqual(withinPacing([c('a', 1)], { minuteLeft: 10, minuteEmpty: false, dayLeft: 0 }), []);
  });
});

describe('claims paced in segments', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it('counts segments per minute: two 4-segment texts fit in 9, a 2-segment one waits for the window', async () => {
    const line = await activeLine(t, { send_rate_per_minute: 9 });
    const sent = [
      await text(t, line, FOUR_SEGMENTS),
      await text(t, line, FOUR_SEGMENTS),
      await text(t, line, 'b'.repeat(200)),
    ];
    assert.deepEqual(
      sent.map((m) => m.segments),
      [4, 4, 2],
    );
    assert.deepEqual(
      (await claim(t, line)).map((m) => m.id),
      [sent[0].id, sent[1].id],
    );
    t.clock.advance(59_000);
    assert.deepEqual(await claim(t, line), [], '8 of 9 segments spent in this minute');
    t.clock.advance(1_001);
    assert.deepEqual(
      (await claim(t, line)).map((m) => m.id),
      [sent[2].id],
    );
  });

  it('counts UCS-2 segments', async () => {
    const line = await activeLine(t, { send_rate_per_minute: 3 });
    const first = await text(t, line, TWO_UCS2_SEGMENTS);
    const second = await text(t, line, TWO_UCS2_SEGMENTS);
    assert.equal(first.segments, 2);
    assert.deepEqual(
      (await claim(t, line)).map((m) => m.id),
      [first.id],
    );
    t.clock.advance(MINUTE + 1);
    assert.deepEqual(
      (await claim(t, line)).map((m) => m.id),
      [second.id],
    );
  });

  it('never hands out more than daily_send_limit segments in 24 hours', async () => {
    const line = await activeLine(t, { send_rate_per_minute: 30 });
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/v1/admin/devices/${line.device.id}`,
      headers: admin,
      payload: { daily_send_limit: 10 },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const sent = [];
    for (let i = 0; i < 4; i++) sent.push(await text(t, line, FOUR_SEGMENTS));
    t.clock.advance(1_001); // past the cached assignment
    assert.deepEqual(
      (await claim(t, line)).map((m) => m.id),
      [sent[0].id, sent[1].id],
    );
    t.clock.advance(10 * MINUTE);
    assert.deepEqual(await claim(t, line), [], '8 of 10 segments spent today: a 4-segment text waits');
    // The queue expires after an hour unclaimed; requeue the waiting ones as a day passes.
    t.clock.advance(24 * 60 * MINUTE);
    await t.database.db
      .updateTable('messages')
      .set({ expires_at: new Date(t.clock.now().getTime() + 60 * MINUTE).toISOString() })
      .where('id', 'in', [sent[2].id, sent[3].id])
      .execute();
    assert.deepEqual(
      (await claim(t, line)).map((m) => m.id),
      [sent[2].id, sent[3].id],
    );
  });

  it('hands a text longer than the minute budget alone in an empty minute', async () => {
    const line = await activeLine(t, { send_rate_per_minute: 3 });
    const long = await text(t, line, FOUR_SEGMENTS);
    const short = await text(t, line, 'hi');
    assert.deepEqual(
      (await claim(t, line)).map((m) => m.id),
      [long.id],
    );
    assert.deepEqual(await claim(t, line), []);
    t.clock.advance(MINUTE + 1);
    assert.deepEqual(
      (await claim(t, line)).map((m) => m.id),
      [short.id],
    );
  });
});
