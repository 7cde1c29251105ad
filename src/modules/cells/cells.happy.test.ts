import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, admin, startApp, type TestApp } from '../../../test/harness.ts';
import { ApiError } from '../../lib/errors.ts';
import { addDevice } from '../../../test/support/devices.ts';
import { createCell, eventsOf } from '../../../test/support/cells.ts';

type Cell = { id: string; status: string; phone_number: string | null };

describe('cells', () => {
  let t: TestApp;
  let org: Awaited<ReturnType<typeof activeOrganization>>;
  // Each test starts from an empty inventory.
  beforeEach(async () => {
    t = await startApp();
    org = await activeOrganization(t);
  });
  afterEach(() => t.close());

  it('creates an active cell on a free phone and emits cell.created', async () => {
    const device = await addDevice(t);
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/cells',
      headers: org.headers,
      payload: { display_name: 'Support line' },
    });
    assert.equal(response.statusCode, 201);
    const cell = response.json();
    assert.match(cell.id, /^cell_/);
    assert.deepEqual(cell, {
      id: cell.id,
      display_name: 'Support line',
      phone_number: device.phoneNumber,
      status: 'active',
      online: false,
      last_seen_at: null,
      pod_id: null,
      quiet_hours: null,
      capabilities: { delivery_reports: true, mms_send: true, mms_receive: true },
      health: 'healthy',
      created_at: t.clock.now().toISOString(),
      updated_at: t.clock.now().toISOString(),
    });
    const read = await t.app.inject({ url: `/v1/cells/${cell.id}`, headers: org.headers });
    assert.deepEqual(read.json(), cell);
    const device2 = (await t.app.inject({ url: `/v1/admin/devices/${device.id}`, headers: admin })).json();
    assert.equal(device2.cell_id, cell.id);
    const created = await eventsOf(t, 'cell.created');
    assert.equal(created.length, 1);
    assert.equal(created[0].organization_id, org.organizationId);
    assert.deepEqual(created[0].data, cell);
  });

  it('without a free phone the cell waits in provisioning; adding a phone activates it', async () => {
    const waiting = await createCell(t, org.headers, 'Waiting');
    assert.equal(waiting.status, 'provisioning');
    assert.equal(waiting.phone_number, null);
    assert.equal(waiting.online, false);

    t.clock.advance(1000);
    const device = await addDevice(t);
    assert.equal(device.cellId, waiting.id, 'the new phone went to the waiting cell');
    const cell = (await t.app.inject({ url: `/v1/cells/${waiting.id}`, headers: org.headers })).json();
    assert.equal(cell.status, 'active');
    assert.equal(cell.phone_number, device.phoneNumber);
    assert.equal(cell.updated_at, t.clock.now().toISOString());
    const updated = await eventsOf(t, 'cell.updated');
    assert.equal(updated.length, 1);
    assert.equal(updated[0].data.status, 'active');
    assert.equal(updated[0].data.phone_number, device.phoneNumber);
  });

  it('waiting cells get phones oldest first', async () => {
    const first = await createCell(t, org.headers, 'first');
    t.clock.advance(10);
    const second = await createCell(t, org.headers, 'second');
    const device = await addDevice(t);
    assert.equal(device.cellId, first.id);
    const stillWaiting = (await t.app.inject({ url: `/v1/cells/${second.id}`, headers: org.headers })).json();
    assert.equal(stillWaiting.status, 'provisioning');
  });

  it('5 concurrent creates with 3 free phones: exactly 3 active on distinct phones, 2 provisioning', async () => {
    const devices = [await addDevice(t), await addDevice(t), await addDevice(t)];
    const responses = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        t.app.inject({
          method: 'POST',
          url: '/v1/cells',
          headers: org.headers,
          payload: { display_name: `line ${i}` },
        }),
      ),
    );
    assert.deepEqual(
      responses.map((r) => r.statusCode),
      [201, 201, 201, 201, 201],
    );
    const cells: Cell[] = responses.map((r) => r.json());
    const active = cells.filter((c) => c.status === 'active');
    assert.equal(active.length, 3);
    assert.equal(cells.filter((c) => c.status === 'provisioning').length, 2);
    assert.deepEqual(active.map((c) => c.phone_number).sort(), devices.map((d) => d.phoneNumber).sort());
    const rows = await t.database.db.selectFrom('devices').select(['id', 'cell_id']).execute();
    assert.deepEqual(new Set(rows.map((r) => r.cell_id)), new Set(active.map((c) => c.id)));
  });

  it('cells created while phones are being added all end up active, each on its own phone', async () => {
    const creates = Array.from({ length: 6 }, (_, i) =>
      t.app.inject({ method: 'POST', url: '/v1/cells', headers: org.headers, payload: { display_name: `line ${i}` } }),
    );
    const adds = Array.from({ length: 6 }, () => addDevice(t));
    const [cellResponses] = await Promise.all([Promise.all(creates), Promise.all(adds)]);
    assert.ok(cellResponses.every((r) => r.statusCode === 201));
    const list = (await t.app.inject({ url: '/v1/cells', headers: org.headers })).json();
    assert.deepEqual(
      list.cells.map((c: Cell) => c.status),
      Array(6).fill('active'),
    );
    assert.equal(new Set(list.cells.map((c: Cell) => c.phone_number)).size, 6);
    const updates = await eventsOf(t, 'cell.updated');
    assert.ok(updates.every((e) => e.data.status === 'active'));
  });

  it('lists cells newest first with a status filter and pages', async () => {
    await addDevice(t);
    const activeCell = await createCell(t, org.headers, 'a');
    const waitingOne = await createCell(t, org.headers, 'b');
    const waitingTwo = await createCell(t, org.headers, 'c');
    const all = (await t.app.inject({ url: '/v1/cells', headers: org.headers })).json();
    assert.deepEqual(
      all.cells.map((c: Cell) => c.id),
      [waitingTwo.id, waitingOne.id, activeCell.id],
    );
    assert.equal(all.next_cursor, null);

    const provisioning = (await t.app.inject({ url: '/v1/cells?status=provisioning', headers: org.headers })).json();
    assert.deepEqual(
      provisioning.cells.map((c: Cell) => c.id),
      [waitingTwo.id, waitingOne.id],
    );
    const active = (await t.app.inject({ url: '/v1/cells?status=active', headers: org.headers })).json();
    assert.deepEqual(
      active.cells.map((c: Cell) => c.id),
      [activeCell.id],
    );

    const page1 = (await t.app.inject({ url: '/v1/cells?limit=2', headers: org.headers })).json();
    assert.equal(page1.cells.length, 2);
    const page2 = (
      await t.app.inject({ url: `/v1/cells?limit=2&cursor=${page1.next_cursor}`, headers: org.headers })
    ).json();
    assert.deepEqual(
      page2.cells.map((c: Cell) => c.id),
      [activeCell.id],
    );
    assert.equal(page2.next_cursor, null);
  });

  it('renames a cell and emits cell.updated', async () => {
    const cell = await createCell(t, org.headers, 'old name');
    t.clock.advance(5000);
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/v1/cells/${cell.id}`,
      headers: org.headers,
      payload: { display_name: 'new name' },
    });
    assert.equal(response.statusCode, 200);
    const renamed = response.json();
    assert.equal(renamed.display_name, 'new name');
    assert.equal(renamed.updated_at, t.clock.now().toISOString());
    assert.equal(renamed.created_at, cell.created_at);
    const updated = await eventsOf(t, 'cell.updated');
    assert.deepEqual(
      updated.map((e) => e.data),
      [renamed],
    );
  });

  it('DELETE releases the cell (200, status released), frees the phone for the oldest waiting cell and emits cell.deleted', async () => {
    const device = await addDevice(t);
    const cell = await createCell(t, org.headers, 'to release');
    const waiting = await createCell(t, org.headers, 'waiting');
    assert.equal(waiting.status, 'provisioning');

    t.clock.advance(1000);
    const response = await t.app.inject({ method: 'DELETE', url: `/v1/cells/${cell.id}`, headers: org.headers });
    assert.equal(response.statusCode, 200);
    const released = response.json();
    assert.equal(released.id, cell.id);
    assert.equal(released.status, 'released');
    assert.equal(released.online, false);

    assert.equal((await t.app.inject({ url: `/v1/cells/${cell.id}`, headers: org.headers })).statusCode, 404);
    const list = (await t.app.inject({ url: '/v1/cells', headers: org.headers })).json();
    assert.deepEqual(
      list.cells.map((c: Cell) => c.id),
      [waiting.id],
    );

    const next = (await t.app.inject({ url: `/v1/cells/${waiting.id}`, headers: org.headers })).json();
    assert.equal(next.status, 'active');
    assert.equal(next.phone_number, device.phoneNumber);
    const deviceView = (await t.app.inject({ url: `/v1/admin/devices/${device.id}`, headers: admin })).json();
    assert.equal(deviceView.cell_id, waiting.id);

    const deleted = await eventsOf(t, 'cell.deleted');
    assert.deepEqual(
      deleted.map((e) => e.data),
      [released],
    );
  });

  it("a released cell's phone is free again for the next create", async () => {
    const device = await addDevice(t);
    const cell = await createCell(t, org.headers);
    await t.app.inject({ method: 'DELETE', url: `/v1/cells/${cell.id}`, headers: org.headers });
    const next = await createCell(t, org.headers);
    assert.equal(next.status, 'active');
    assert.equal(next.phone_number, device.phoneNumber);
  });
});

describe('cells: the service methods messaging calls', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startApp();
  });
  afterEach(() => t.close());

  it('getOwned and sendingCells: active passes, provisioning is 409 cell_not_active, other org and released are 404', async () => {
    const org = await activeOrganization(t);
    const other = await activeOrganization(t);
    const device = await addDevice(t, { send_rate_per_minute: 7, daily_send_limit: 70 });
    const active = await createCell(t, org.headers);
    const waiting = await createCell(t, org.headers);
    const cells = t.services.cells;

    const [ok, provisioning, foreign, unknown] = await cells.sendingCells(t.database.db, [
      { organizationId: org.organizationId, cellId: active.id },
      { organizationId: org.organizationId, cellId: waiting.id },
      { organizationId: other.organizationId, cellId: active.id },
      { organizationId: org.organizationId, cellId: 'cell_unknown' },
    ]);
    assert.deepEqual(ok, {
      id: active.id,
      organization_id: org.organizationId,
      phone_number: active.phone_number,
      mms_send: true,
      quiet_hours: null,
      phone: { id: device.id, sendRatePerMinute: 7, dailySendLimit: 70 },
    });
    assert.ok(
      provisioning instanceof ApiError && provisioning.code === 'cell_not_active' && provisioning.status === 409,
    );
    assert.ok(foreign instanceof ApiError && foreign.code === 'not_found');
    assert.ok(unknown instanceof ApiError && unknown.code === 'not_found');
    assert.equal((await cells.getOwned(org.organizationId, waiting.id)).status, 'provisioning');
    await assert.rejects(cells.getOwned(other.organizationId, active.id), { code: 'not_found' });

    const record = await cells.getOwned(org.organizationId, active.id);
    assert.deepEqual(cells.view(record), active);

    await t.app.inject({ method: 'DELETE', url: `/v1/cells/${active.id}`, headers: org.headers });
    await assert.rejects(cells.getOwned(org.organizationId, active.id), { code: 'not_found' });
  });

  it('onRelease listeners run inside the release transaction; a failing listener rolls the release back', async () => {
    const org = await activeOrganization(t);
    const device = await addDevice(t);
    const cell = await createCell(t, org.headers);
    assert.equal(cell.phone_number, device.phoneNumber);
    const seen: string[] = [];
    let fail = true;
    t.services.cells.onRelease(async (tx, released) => {
      // Inside the transaction the cell is already released and its phone already free.
      const row = await tx.selectFrom('cells').select('status').where('id', '=', released.id).executeTakeFirstOrThrow();
      seen.push(`${released.id}:${row.status}`);
      if (fail) throw new Error('listener failed');
    });
    const failed = await t.app.inject({ method: 'DELETE', url: `/v1/cells/${cell.id}`, headers: org.headers });
    assert.equal(failed.statusCode, 500);
    assert.equal((await t.app.inject({ url: `/v1/cells/${cell.id}`, headers: org.headers })).json().status, 'active');
    assert.equal(
      (await t.app.inject({ url: `/v1/admin/devices/${device.id}`, headers: admin })).json().cell_id,
      cell.id,
    );
    assert.equal((await eventsOf(t, 'cell.deleted')).length, 0);

    fail = false;
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/v1/cells/${cell.id}`, headers: org.headers })).statusCode,
      200,
    );
    assert.deepEqual(seen, [`${cell.id}:released`, `${cell.id}:released`]);
  });

  it('assignment() follows the cell: null while free, the active cell when assigned, null after release', async () => {
    const org = await activeOrganization(t);
    const device = await addDevice(t, { send_rate_per_minute: 24 });
    const devices = t.services.devices;
    assert.equal(await devices.assignment(device.id), null);
    const cell = await createCell(t, org.headers);
    assert.deepEqual(await devices.assignment(device.id), {
      deviceId: device.id,
      cellId: cell.id,
      organizationId: org.organizationId,
      phoneNumber: device.phoneNumber,
      sendRatePerMinute: 24,
      dailySendLimit: 300,
      claims: true,
      // A one-line phone of the native surface: one cell, no SIM number.
      lines: [
        { cellId: cell.id, organizationId: org.organizationId, phoneNumber: device.phoneNumber, simNumber: null },
      ],
    });
    await t.app.inject({
      method: 'PATCH',
      url: `/v1/admin/devices/${device.id}`,
      headers: admin,
      payload: { send_rate_per_minute: 7 },
    });
    assert.equal((await devices.assignment(device.id))?.sendRatePerMinute, 7);
    await t.app.inject({ method: 'DELETE', url: `/v1/cells/${cell.id}`, headers: org.headers });
    assert.equal(await devices.assignment(device.id), null);
  });
});
