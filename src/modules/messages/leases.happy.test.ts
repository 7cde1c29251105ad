import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../../../test/harness.ts';
import { eventsOf } from '../../../test/support/cells.ts';
import { activeLine, claim, queued, report, type Line, withLine } from '../../../test/support/messages.ts';

const LEASE = 120_000;

describe('message leases and expiry (worker)', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  const row = (id: string) =>
    t.database.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const failedEventsFor = async (id: string) => (await eventsOf(t, 'message.failed')).filter((e) => e.data.id === id);

  it('keeps a lease until it runs out', async () => {
    const line = await activeLine(t);
    const message = await queued(t, line, { to: '+14155550130', body: 'x' });
    await claim(t, line);
    t.clock.advance(LEASE - 1);
    await t.services.messageLeases.tick();
    assert.equal((await row(message.id)).status, 'sending');
  });

  it('re-queues an expired lease, and fails the message with attempts_exhausted after the third', async () => {
    const line = await activeLine(t, { send_rate_per_minute: 30 });
    const message = await queued(t, line, { to: '+14155550131', body: 'flaky' });
    for (let attempt = 1; attempt <= 3; attempt++) {
      const [claimed] = await claim(t, line);
      assert.equal(claimed.id, message.id, `attempt ${attempt}`);
      assert.equal((await row(message.id)).attempts, attempt);
      t.clock.advance(LEASE);
      await t.services.messageLeases.tick();
      if (attempt < 3) {
        const requeued = await row(message.id);
        assert.equal(requeued.status, 'queued');
        assert.equal(requeued.device_id, null);
        assert.equal(requeued.lease_expires_at, null);
      }
    }
    const failed = await row(message.id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error_code, 'attempts_exhausted');
    assert.deepEqual(await claim(t, line), []);
    const events = await failedEventsFor(message.id);
    assert.equal(events.length, 1);
    assert.equal(events[0].data.status, 'failed');
    assert.equal(events[0].data.error.code, 'attempts_exhausted');
  });

  it('a report on a re-queued message from its former device is 409; the message stays queued', async () => {
    const line = await activeLine(t);
    const message = await queued(t, line, { to: '+14155550132', body: 'x' });
    await claim(t, line);
    t.clock.advance(LEASE);
    await t.services.messageLeases.tick();
    const late = await report(t, line, message.id, { event: 'sent' });
    assert.equal(late.statusCode, 409);
    assert.equal(late.json().code, 'conflict');
    assert.equal((await row(message.id)).status, 'queued');
  });

  it('accepts a report on a lease that ran out but was not yet re-queued', async () => {
    const line = await activeLine(t);
    const message = await queued(t, line, { to: '+14155550133', body: 'x' });
    await claim(t, line);
    t.clock.advance(LEASE + 5000);
    const sent = await report(t, line, message.id, { event: 'sent' });
    assert.equal(sent.json().status, 'sent');
    await t.services.messageLeases.tick();
    assert.equal((await row(message.id)).status, 'sent');
  });

  it('fails a message nobody claimed for an hour with expired', async () => {
    const line = await activeLine(t);
    const stale = await queued(t, line, { to: '+14155550134', body: 'old' });
    t.clock.advance(60 * 60 * 1000 - 1);
    const young = await queued(t, line, { to: '+14155550134', body: 'new' });
    await t.services.messageLeases.tick();
    assert.equal((await row(stale.id)).status, 'queued');
    t.clock.advance(1);
    await t.services.messageLeases.tick();
    const expired = await row(stale.id);
    assert.equal(expired.status, 'failed');
    assert.equal(expired.error_code, 'expired');
    assert.equal((await row(young.id)).status, 'queued');
    const events = await failedEventsFor(stale.id);
    assert.equal(events.length, 1);
    assert.equal(events[0].data.error.code, 'expired');
    // A device polling now gets only the young message.
    assert.deepEqual(
      (await claim(t, line)).map((m) => m.id),
      [young.id],
    );
  });

  it('a device never claims a message past its hour, even before the worker runs', async () => {
    const line = await activeLine(t);
    await queued(t, line, { to: '+14155550135', body: 'old' });
    t.clock.advance(60 * 60 * 1000);
    assert.deepEqual(await claim(t, line), []);
  });

  it('a re-queued message gets a fresh hour', async () => {
    const line = await activeLine(t);
    const message = await queued(t, line, { to: '+14155550136', body: 'x' });
    t.clock.advance(59 * 60 * 1000);
    await claim(t, line);
    t.clock.advance(LEASE);
    await t.services.messageLeases.tick();
    t.clock.advance(30 * 60 * 1000);
    await t.services.messageLeases.tick();
    assert.equal((await row(message.id)).status, 'queued');
  });
});

describe('releasing a cell', () => {
  let t: TestApp;
  let line: Line;
  withLine(
    (app, started) => {
      t = app;
      line = started;
    },
    { send_rate_per_minute: 30 },
  );

  it('fails its queued and in-flight messages with cell_released and leaves finished ones alone', async () => {
    const delivered = await queued(t, line, { to: '+14155550140', body: 'done' });
    await claim(t, line);
    await report(t, line, delivered.id, { event: 'delivered' });
    const inFlight = await queued(t, line, { to: '+14155550140', body: 'in flight' });
    await claim(t, line);
    const waiting = await queued(t, line, { to: '+14155550140', body: 'waiting' });
    const released = await t.app.inject({
      method: 'DELETE',
      url: `/v1/cells/${line.cell.id}`,
      headers: line.org.headers,
    });
    assert.equal(released.statusCode, 200);
    const rows = await t.database.db
      .selectFrom('messages')
      .select(['id', 'status', 'error_code'])
      .where('cell_id', '=', line.cell.id)
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    assert.equal(byId.get(delivered.id)?.status, 'delivered');
    for (const id of [inFlight.id, waiting.id]) {
      assert.equal(byId.get(id)?.status, 'failed');
      assert.equal(byId.get(id)?.error_code, 'cell_released');
    }
    const failed = (await eventsOf(t, 'message.failed')).map((e) => e.data.id).sort();
    assert.deepEqual(failed, [inFlight.id, waiting.id].sort());
    // The device no longer carries a cell: nothing to claim, reports on the old lease change nothing.
    assert.deepEqual(await claim(t, line), []);
    const late = await report(t, line, inFlight.id, { event: 'delivered' });
    assert.equal(late.statusCode, 200);
    assert.equal(late.json().status, 'failed');
  });
});
