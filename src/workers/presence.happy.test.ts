import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, admin, startApp, type TestApp } from '../../test/harness.ts';
import { createCell, eventsOf } from '../../test/support/cells.ts';
import { addDevice, type TestDevice } from '../../test/support/devices.ts';
import { presenceWorker } from './presence.ts';

describe('device presence', () => {
  let t: TestApp;
  let tick: () => Promise<{ offline: number; paired: number }>;
  beforeEach(async () => {
    t = await startApp();
    const worker = presenceWorker({ devices: t.services.devices, cells: t.services.cells });
    tick = () => worker.tick();
  });
  afterEach(() => t.close());

  const heartbeat = (device: TestDevice) =>
    t.app.inject({ method: 'POST', url: '/v1/device/heartbeat', headers: device.headers, payload: {} });
  const cellOf = async (headers: Record<string, string>, id: string) =>
    (await t.app.inject({ url: `/v1/cells/${id}`, headers })).json();

  it('a device carrying a cell comes online on its first call (cell.online), goes offline after 120 s of silence (cell.offline) and back', async () => {
    const org = await activeOrganization(t);
    const device = await addDevice(t);
    const cell = await createCell(t, org.headers);
    assert.equal(cell.online, false);

    t.clock.advance(1000);
    assert.equal((await heartbeat(device)).statusCode, 200);
    const seenAt = t.clock.now().toISOString();
    const online = await cellOf(org.headers, cell.id);
    assert.equal(online.online, true);
    assert.equal(online.last_seen_at, seenAt);
    const onlineEvents = await eventsOf(t, 'cell.online');
    assert.equal(onlineEvents.length, 1);
    assert.equal(onlineEvents[0].organization_id, org.organizationId);
    assert.deepEqual(onlineEvents[0].data, online);

    // Calls while online emit nothing more.
    t.clock.advance(30_000);
    await heartbeat(device);
    assert.equal((await eventsOf(t, 'cell.online')).length, 1);
    const lastCall = t.clock.now().toISOString();

    // 119.999 s after the last call: still online.
    t.clock.advance(119_999);
    assert.deepEqual(await tick(), { offline: 0, paired: 0 });
    assert.equal((await cellOf(org.headers, cell.id)).online, true);

    t.clock.advance(2);
    assert.deepEqual(await tick(), { offline: 1, paired: 0 });
    const offline = await cellOf(org.headers, cell.id);
    assert.equal(offline.online, false);
    assert.equal(offline.last_seen_at, lastCall);
    const offlineEvents = await eventsOf(t, 'cell.offline');
    assert.equal(offlineEvents.length, 1);
    assert.deepEqual(offlineEvents[0].data, offline);

    // A second tick finds nothing new.
    assert.deepEqual(await tick(), { offline: 0, paired: 0 });
    assert.equal((await eventsOf(t, 'cell.offline')).length, 1);

    // Any authenticated call brings it back.
    t.clock.advance(5000);
    await heartbeat(device);
    assert.equal((await cellOf(org.headers, cell.id)).online, true);
    assert.equal((await eventsOf(t, 'cell.online')).length, 2);
  });

  it('a free device changes presence without cell events', async () => {
    const device = await addDevice(t);
    await heartbeat(device);
    assert.equal((await t.app.inject({ url: `/v1/admin/devices/${device.id}`, headers: admin })).json().online, true);
    t.clock.advance(121_000);
    assert.deepEqual(await tick(), { offline: 1, paired: 0 });
    assert.equal((await t.app.inject({ url: `/v1/admin/devices/${device.id}`, headers: admin })).json().online, false);
    assert.equal((await eventsOf(t, 'cell.online')).length, 0);
    assert.equal((await eventsOf(t, 'cell.offline')).length, 0);
  });

  it('last_seen_at is written at most once a second per device', async () => {
    const device = await addDevice(t);
    await heartbeat(device);
    const first = t.clock.now().toISOString();
    t.clock.advance(500);
    await heartbeat(device);
    assert.equal(
      (await t.app.inject({ url: `/v1/admin/devices/${device.id}`, headers: admin })).json().last_seen_at,
      first,
    );
    t.clock.advance(500);
    await heartbeat(device);
    assert.equal(
      (await t.app.inject({ url: `/v1/admin/devices/${device.id}`, headers: admin })).json().last_seen_at,
      t.clock.now().toISOString(),
    );
  });

  it('a cell given a phone that is already online shows it online', async () => {
    const org = await activeOrganization(t);
    const device = await addDevice(t);
    await heartbeat(device);
    const cell = await createCell(t, org.headers);
    assert.equal(cell.online, true);
    assert.equal(cell.last_seen_at, t.clock.now().toISOString());
  });

  it('the tick pairs a waiting cell with a free phone left unpaired', async () => {
    const org = await activeOrganization(t);
    const waiting = await createCell(t, org.headers);
    // A phone that reached the inventory without the pairing step (as after a crash between commits).
    const device = await addDevice(t);
    await t.database.db.updateTable('devices').set({ cell_id: null }).where('id', '=', device.id).execute();
    await t.database.db
      .updateTable('cells')
      .set({ status: 'provisioning', phone_number: null, device_id: null })
      .where('id', '=', waiting.id)
      .execute();
    assert.deepEqual(await tick(), { offline: 0, paired: 1 });
    const cell = await cellOf(org.headers, waiting.id);
    assert.equal(cell.status, 'active');
    assert.equal(cell.phone_number, device.phoneNumber);
  });
});
