import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, atEpoch, startApp, type TestApp } from '../../../test/harness.ts';
import { addDevice, type TestDevice } from '../../../test/support/devices.ts';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

async function beat(t: TestApp, device: TestDevice, payload: Record<string, unknown>) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/v1/device/heartbeat',
    headers: device.headers,
    payload,
  });
  assert.equal(response.statusCode, 200, response.body);
}

async function history(t: TestApp, device: TestDevice, query = '') {
  const response = await t.app.inject({ url: `/v1/admin/devices/${device.id}/heartbeats${query}`, headers: admin });
  assert.equal(response.statusCode, 200, response.body);
  return response.json() as {
    heartbeats: Array<{
      battery_pct: number | null;
      charging: boolean | null;
      signal_dbm: number | null;
      received_at: string;
    }>;
    next_cursor: string | null;
  };
}

/** Minutes after the start of the minute the clock is in, so tests never straddle a minute by accident. */
function toNextMinute(t: TestApp): void {
  const now = t.clock.now().getTime();
  t.clock.advance(MINUTE - (now % MINUTE));
}

describe('heartbeat history', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it("records what a heartbeat reported, at the injected clock's time", async () => {
    const device = await addDevice(t);
    toNextMinute(t);
    await beat(t, device, { battery_pct: 87, charging: true, signal_dbm: -71, app_version: '1.4.0' });
    const page = await history(t, device);
    assert.deepEqual(page, {
      heartbeats: [{ battery_pct: 87, charging: true, signal_dbm: -71, received_at: t.clock.now().toISOString() }],
      next_cursor: null,
    });
  });

  it('coalesces heartbeats within one minute into the first, and records the next minute anew', async () => {
    const device = await addDevice(t);
    toNextMinute(t);
    const first = t.clock.now().toISOString();
    await beat(t, device, { battery_pct: 50, charging: false, signal_dbm: -80 });
    t.clock.advance(30_000);
    await beat(t, device, { battery_pct: 49, charging: false, signal_dbm: -81 });
    t.clock.advance(29_000);
    await beat(t, device, { battery_pct: 48 });
    t.clock.advance(1_000);
    const second = t.clock.now().toISOString();
    await beat(t, device, { battery_pct: 47, charging: true, signal_dbm: -90 });
    const page = await history(t, device);
    assert.deepEqual(page.heartbeats, [
      { battery_pct: 47, charging: true, signal_dbm: -90, received_at: second },
      { battery_pct: 50, charging: false, signal_dbm: -80, received_at: first },
    ]);
    const rows = await t.database.db
      .selectFrom('device_heartbeats')
      .select('minute')
      .where('device_id', '=', device.id)
      .execute();
    assert.equal(rows.length, 2);
  });

  it('a bare heartbeat records nothing; a partial one records null for what it left out', async () => {
    const device = await addDevice(t);
    toNextMinute(t);
    await beat(t, device, {});
    await beat(t, device, { app_version: '1.4.1' });
    assert.deepEqual((await history(t, device)).heartbeats, []);
    await beat(t, device, { signal_dbm: -100 });
    assert.deepEqual((await history(t, device)).heartbeats, [
      { battery_pct: null, charging: null, signal_dbm: -100, received_at: t.clock.now().toISOString() },
    ]);
  });

  it('pages newest first with a cursor, and filters on [from, to)', async () => {
    const device = await addDevice(t);
    const other = await addDevice(t);
    toNextMinute(t);
    const times: string[] = [];
    for (let i = 0; i < 5; i++) {
      times.push(t.clock.now().toISOString());
      await beat(t, device, { battery_pct: 90 - i });
      await beat(t, other, { battery_pct: 10 });
      t.clock.advance(MINUTE);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await history(t, device, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      assert.ok(page.heartbeats.length <= 2);
      seen.push(...page.heartbeats.map((h) => h.received_at));
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen, [...times].reverse());

    const ranged = await history(t, device, `?from=${encodeURIComponent(times[1])}&to=${encodeURIComponent(times[3])}`);
    assert.deepEqual(
      ranged.heartbeats.map((h) => [h.received_at, h.battery_pct]),
      [
        [times[2], 88],
        [times[1], 89],
      ],
    );
    const paged = await history(t, device, `?from=${encodeURIComponent(times[1])}&limit=1`);
    const next = await history(t, device, `?from=${encodeURIComponent(times[1])}&limit=1&cursor=${paged.next_cursor}`);
    assert.deepEqual([paged.heartbeats[0].received_at, next.heartbeats[0].received_at], [times[4], times[3]]);
  });

  it('removing a phone removes its history', async () => {
    const device = await addDevice(t);
    await beat(t, device, { battery_pct: 33 });
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/v1/admin/devices/${device.id}`, headers: admin })).statusCode,
      204,
    );
    const rows = await t.database.db
      .selectFrom('device_heartbeats')
      .select('minute')
      .where('device_id', '=', device.id)
      .execute();
    assert.deepEqual(rows, []);
  });
});

describe('heartbeat history: pruning after 7 days', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it('prunes rows older than 7 days on the injected clock and keeps younger ones', async () => {
    const device = await addDevice(t);
    toNextMinute(t);
    const old = t.clock.now().toISOString();
    await beat(t, device, { battery_pct: 70 });
    t.clock.advance(DAY);
    const younger = t.clock.now().toISOString();
    await beat(t, device, { battery_pct: 60 });
    t.clock.advance(6 * DAY - MINUTE);
    assert.equal(await t.services.devices.pruneHeartbeats(), 0, 'a row just under 7 days old is kept');
    assert.deepEqual(
      (await history(t, device)).heartbeats.map((h) => h.received_at),
      [younger, old],
    );
    t.clock.advance(2 * MINUTE);
    assert.equal(await t.services.devices.pruneHeartbeats(), 1);
    assert.deepEqual(
      (await history(t, device)).heartbeats.map((h) => h.received_at),
      [younger],
    );
    assert.equal(await t.services.devices.pruneHeartbeats(), 0, 'pruning again deletes nothing');
  });
});

describe('heartbeat history: pruning a large backlog', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it('deletes every expired row across devices, in batches, and nothing younger', async () => {
    const rows = [];
    for (const deviceId of ['dev_a', 'dev_b']) {
      for (let minute = 0; minute < 200; minute++) {
        const at = Date.parse(atEpoch(-8 * DAY + minute * MINUTE));
        rows.push({
          device_id: deviceId,
          minute: Math.floor(at / MINUTE),
          battery_pct: 50,
          charging: 0,
          signal_dbm: -70,
          received_at: new Date(at).toISOString(),
        });
      }
    }
    const kept = Date.parse(atEpoch(-DAY));
    rows.push({
      device_id: 'dev_a',
      minute: Math.floor(kept / MINUTE),
      battery_pct: 50,
      charging: 0,
      signal_dbm: -70,
      received_at: new Date(kept).toISOString(),
    });
    await t.database.db.insertInto('device_heartbeats').values(rows).execute();
    assert.equal(await t.services.devices.pruneHeartbeats(), 400);
    const left = await t.database.db.selectFrom('device_heartbeats').select('received_at').execute();
    assert.deepEqual(
      left.map((r) => r.received_at),
      [new Date(kept).toISOString()],
    );
  });
});
