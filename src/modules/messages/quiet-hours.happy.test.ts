import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../../../test/harness.ts';
import { activeLine, claim, send, type Line } from '../../../test/support/messages.ts';
import { ok, podWithLines } from '../../../test/support/pods.ts';

const HOUR = 60 * 60 * 1000;
/** HH:MM (UTC) of an instant. */
const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

describe('quiet hours', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  const now = () => t.clock.now().getTime();
  /** Quiet from an hour ago to an hour from now (whole minutes), in UTC: the send is inside. */
  const aroundNow = () => ({ start: hhmm(now() - HOUR), end: hhmm(now() + HOUR), time_zone: 'UTC' });
  const endOf = (quiet: { end: string }) => {
    const end = new Date(now());
    end.setUTCHours(Number(quiet.end.slice(0, 2)), Number(quiet.end.slice(3)), 0, 0);
    if (end.getTime() <= now()) end.setUTCDate(end.getUTCDate() + 1);
    return end.toISOString();
  };
  const patchCell = (line: Line, payload: unknown) => ok(t, line.org, 'PATCH', `/v1/cells/${line.cell.id}`, payload);

  it('sets a cell’s quiet hours, schedules a send inside them for their end, and clears them with null', async () => {
    const line = await activeLine(t);
    const quiet = aroundNow();
    const cell = await patchCell(line, { quiet_hours: quiet });
    assert.deepEqual(cell.quiet_hours, quiet);
    assert.deepEqual((await ok(t, line.org, 'GET', `/v1/cells/${line.cell.id}`)).quiet_hours, quiet);

    const held = (await send(t, line, { to: '+14155550123', body: 'at night' })).json();
    assert.equal(held.status, 'scheduled');
    assert.equal(held.schedule_reason, 'quiet_hours');
    assert.equal(held.send_at, endOf(quiet));
    assert.deepEqual(await claim(t, line), []);

    t.clock.advance(new Date(held.send_at).getTime() - now());
    await t.services.scheduledSends.tick();
    assert.deepEqual(
      (await claim(t, line)).map((m) => m.id),
      [held.id],
    );

    t.clock.advance(-HOUR); // back inside the window (the clock is the test's)
    assert.equal((await patchCell(line, { quiet_hours: null })).quiet_hours, null);
    assert.equal((await send(t, line, { to: '+14155550123', body: 'now' })).json().status, 'queued');
  });

  it('sends at once with send_now: true, and leaves sends outside the window alone', async () => {
    const line = await activeLine(t);
    await patchCell(line, { quiet_hours: aroundNow() });
    const now1 = (await send(t, line, { to: '+14155550123', body: 'urgent', send_now: true })).json();
    assert.equal(now1.status, 'queued');
    assert.equal(now1.send_at, null);
    await patchCell(line, {
      quiet_hours: { start: hhmm(now() + HOUR), end: hhmm(now() + 2 * HOUR), time_zone: 'UTC' },
    });
    assert.equal((await send(t, line, { to: '+14155550123', body: 'day' })).json().status, 'queued');
  });

  it('moves a send_at that falls inside the quiet hours to their end', async () => {
    const line = await activeLine(t);
    const quiet = { start: hhmm(now() + 2 * HOUR), end: hhmm(now() + 4 * HOUR), time_zone: 'UTC' };
    await patchCell(line, { quiet_hours: quiet });
    const message = (
      await send(t, line, {
        to: '+14155550123',
        body: 'later',
        send_at: new Date(now() + 3 * HOUR).toISOString(),
      })
    ).json();
    assert.equal(message.status, 'scheduled');
    assert.equal(message.schedule_reason, 'quiet_hours');
    assert.equal(message.send_at, new Date(Math.floor((now() + 4 * HOUR) / 60000) * 60000).toISOString());
  });

  it("applies a pod's quiet hours to its cells without their own; a cell's own win", async () => {
    const { org, lines, pod } = await podWithLines(t, 2);
    const quiet = aroundNow();
    const updated = await ok(t, org, 'PATCH', `/v1/pods/${pod.id}`, { quiet_hours: quiet });
    assert.deepEqual(updated.quiet_hours, quiet);
    assert.deepEqual((await ok(t, org, 'GET', `/v1/pods/${pod.id}`)).quiet_hours, quiet);
    assert.equal((await send(t, lines[0], { to: '+14155550123', body: 'pod night' })).json().status, 'scheduled');
    // The second cell's own quiet hours (not now) apply instead of the pod's.
    await patchCell(lines[1], {
      quiet_hours: { start: hhmm(now() + 2 * HOUR), end: hhmm(now() + 3 * HOUR), time_zone: 'UTC' },
    });
    assert.equal((await send(t, lines[1], { to: '+14155550123', body: 'own hours' })).json().status, 'queued');
    assert.equal((await ok(t, org, 'PATCH', `/v1/pods/${pod.id}`, { quiet_hours: null })).quiet_hours, null);
    assert.equal((await send(t, lines[0], { to: '+14155550123', body: 'cleared' })).json().status, 'queued');
  });

  it('still renames a cell, alone or with its quiet hours', async () => {
    const line = await activeLine(t);
    const renamed = await patchCell(line, { display_name: 'Night line', quiet_hours: aroundNow() });
    assert.equal(renamed.display_name, 'Night line');
    assert.equal((await patchCell(line, { display_name: 'Day line' })).quiet_hours.time_zone, 'UTC');
  });
});
