import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, startApp, type TestApp } from '../../../test/harness.ts';
import { addDevice } from '../../../test/support/devices.ts';

describe('device inventory (admin)', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it('adds a phone, normalises its number to E.164 and shows the key once', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/admin/devices',
      headers: admin,
      payload: { phone_number: '+1 (415) 555-2671', label: 'rack 1 slot 3' },
    });
    assert.equal(response.statusCode, 201);
    const device = response.json();
    assert.match(device.id, /^dev_/);
    assert.equal(device.phone_number, '+14155552671');
    assert.equal(device.label, 'rack 1 slot 3');
    assert.equal(device.send_rate_per_minute, 20);
    assert.equal(device.cell_id, null);
    assert.equal(device.online, false);
    assert.equal(device.last_seen_at, null);
    assert.equal(device.charging, null);
    assert.match(device.device_key, /^cg_dev_[0-9A-Za-z]{32}$/);

    const read = await t.app.inject({ url: `/v1/admin/devices/${device.id}`, headers: admin });
    assert.equal(read.statusCode, 200);
    const { device_key: _shownOnce, ...view } = device;
    assert.deepEqual(read.json(), view);

    const row = await t.database.db
      .selectFrom('devices')
      .selectAll()
      .where('id', '=', device.id)
      .executeTakeFirstOrThrow();
    assert.notEqual(row.key_hash, device.device_key);
    assert.ok(!JSON.stringify(row).includes(device.device_key), 'only the hash of the key is stored');
    assert.equal(row.key_prefix, device.device_key.slice(0, 11));
  });

  it('accepts the send rate bounds 1 and 30 (segments per minute)', async () => {
    for (const rate of [1, 30]) {
      const device = await addDevice(t, { send_rate_per_minute: rate });
      const read = await t.app.inject({ url: `/v1/admin/devices/${device.id}`, headers: admin });
      assert.equal(read.json().send_rate_per_minute, rate);
    }
  });

  it('lists phones newest first, page by page', async () => {
    const added = [await addDevice(t), await addDevice(t), await addDevice(t)];
    const first = await t.app.inject({ url: '/v1/admin/devices?limit=2', headers: admin });
    assert.equal(first.statusCode, 200);
    const page1 = first.json();
    assert.equal(page1.devices.length, 2);
    assert.deepEqual(
      page1.devices.map((d: { id: string }) => d.id),
      [added[2].id, added[1].id],
    );
    assert.equal(typeof page1.next_cursor, 'string');
    const second = await t.app.inject({ url: `/v1/admin/devices?limit=2&cursor=${page1.next_cursor}`, headers: admin });
    assert.equal(second.json().devices[0].id, added[0].id);
    for (const device of second.json().devices) assert.equal(device.device_key, undefined);
  });

  it('changes the label and send rate, and clears the label with null', async () => {
    const device = await addDevice(t, { label: 'old' });
    t.clock.advance(1000);
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/v1/admin/devices/${device.id}`,
      headers: admin,
      payload: { label: 'new', send_rate_per_minute: 25 },
    });
    assert.equal(patched.statusCode, 200);
    assert.equal(patched.json().label, 'new');
    assert.equal(patched.json().send_rate_per_minute, 25);
    assert.ok(patched.json().updated_at > patched.json().created_at);
    const cleared = await t.app.inject({
      method: 'PATCH',
      url: `/v1/admin/devices/${device.id}`,
      headers: admin,
      payload: { label: null },
    });
    assert.equal(cleared.json().label, null);
    assert.equal(cleared.json().send_rate_per_minute, 25);
  });

  it('deletes a free phone (204), after which it is 404 and its number can be added again', async () => {
    const device = await addDevice(t);
    const deleted = await t.app.inject({ method: 'DELETE', url: `/v1/admin/devices/${device.id}`, headers: admin });
    assert.equal(deleted.statusCode, 204);
    assert.equal(deleted.body, '');
    assert.equal((await t.app.inject({ url: `/v1/admin/devices/${device.id}`, headers: admin })).statusCode, 404);
    const again = await t.app.inject({
      method: 'POST',
      url: '/v1/admin/devices',
      headers: admin,
      payload: { phone_number: device.phoneNumber },
    });
    assert.equal(again.statusCode, 201);
  });

  it('rotates the key: the new key works, the old one is 401 at once', async () => {
    const device = await addDevice(t);
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/v1/device/heartbeat', headers: device.headers, payload: {} }))
        .statusCode,
      200,
    );
    const rotated = await t.app.inject({
      method: 'POST',
      url: `/v1/admin/devices/${device.id}/rotate-key`,
      headers: admin,
    });
    assert.equal(rotated.statusCode, 200);
    const body = rotated.json();
    assert.equal(body.id, device.id);
    assert.match(body.device_key, /^cg_dev_[0-9A-Za-z]{32}$/);
    assert.notEqual(body.device_key, device.key);
    const old = await t.app.inject({
      method: 'POST',
      url: '/v1/device/heartbeat',
      headers: device.headers,
      payload: {},
    });
    assert.equal(old.statusCode, 401);
    const fresh = await t.app.inject({
      method: 'POST',
      url: '/v1/device/heartbeat',
      headers: { 'x-phone-key': body.device_key },
      payload: {},
    });
    assert.equal(fresh.statusCode, 200);
    assert.equal(fresh.json().device_id, device.id);
  });
});

describe('device heartbeat', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it("stores telemetry and answers with the phone's configuration", async () => {
    const device = await addDevice(t, { send_rate_per_minute: 30 });
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/device/heartbeat',
      headers: device.headers,
      payload: { battery_pct: 87, charging: true, signal_dbm: -71, app_version: '1.4.2' },
    });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), {
      device_id: device.id,
      cell_id: null,
      phone_number: device.phoneNumber,
      send_rate_per_minute: 30,
      daily_send_limit: 300,
      paused: false,
      health: 'healthy',
      hold: null,
      server_time: t.clock.now().toISOString(),
    });
    const view = (await t.app.inject({ url: `/v1/admin/devices/${device.id}`, headers: admin })).json();
    assert.equal(view.battery_pct, 87);
    assert.equal(view.charging, true);
    assert.equal(view.signal_dbm, -71);
    assert.equal(view.app_version, '1.4.2');
    assert.equal(view.online, true);
    assert.equal(view.last_seen_at, t.clock.now().toISOString());
  });

  it('takes a bare heartbeat (no body) and keeps earlier telemetry', async () => {
    const device = await addDevice(t);
    await t.app.inject({
      method: 'POST',
      url: '/v1/device/heartbeat',
      headers: device.headers,
      payload: { battery_pct: 50, charging: false },
    });
    const bare = await t.app.inject({ method: 'POST', url: '/v1/device/heartbeat', headers: device.headers });
    assert.equal(bare.statusCode, 200);
    const view = (await t.app.inject({ url: `/v1/admin/devices/${device.id}`, headers: admin })).json();
    assert.equal(view.battery_pct, 50);
    assert.equal(view.charging, false);
  });

  it('accepts the telemetry bounds', async () => {
    const device = await addDevice(t);
    for (const payload of [
      { battery_pct: 0, signal_dbm: -150 },
      { battery_pct: 100, signal_dbm: 0 },
      { app_version: 'v'.repeat(64) },
    ]) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/v1/device/heartbeat',
        headers: device.headers,
        payload,
      });
      assert.equal(response.statusCode, 200, response.body);
    }
  });
});
