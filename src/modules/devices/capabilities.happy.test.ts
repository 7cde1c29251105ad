// What a phone says it can do (heartbeat `capabilities`), stored on the device and shown on its
// cell, with cell.updated when it changes (contract §4).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, startApp, type TestApp } from '../../../test/harness.ts';
import { createCell, eventsOf } from '../../../test/support/cells.ts';
import { addDevice } from '../../../test/support/devices.ts';
import { activeLine, type Line } from '../../../test/support/messages.ts';

const TERMUX = { delivery_reports: false, mms_send: false, mms_receive: false };
const ALL = { delivery_reports: true, mms_send: true, mms_receive: true };

function heartbeat(t: TestApp, line: Line, payload: Record<string, unknown>) {
  return t.app.inject({ method: 'POST', url: '/v1/device/heartbeat', headers: line.device.headers, payload });
}

async function cellOf(t: TestApp, line: Line) {
  const response = await t.app.inject({ url: `/v1/cells/${line.cell.id}`, headers: line.org.headers });
  assert.equal(response.statusCode, 200);
  return response.json();
}

const updatesOf = async (t: TestApp, cellId: string) =>
  (await eventsOf(t, 'cell.updated')).filter((e) => e.data.id === cellId);

describe('phone capabilities', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it('shows all capabilities on a cell whose phone never stated any, and on a cell still waiting for a phone', async () => {
    const line = await activeLine(t);
    assert.deepEqual((await cellOf(t, line)).capabilities, ALL);
    // No phone is free: the cell waits in provisioning, with nothing known to be missing.
    const waiting = await createCell(t, line.org.headers, 'Waiting line');
    assert.equal(waiting.status, 'provisioning');
    assert.deepEqual(waiting.capabilities, ALL);
    // Released, so that the phones the next tests add go to their own cells.
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/v1/cells/${waiting.id}`, headers: line.org.headers })).statusCode,
      200,
    );
  });

  it('stores what a heartbeat states and shows it on the cell, the cell list and the admin device view', async () => {
    const line = await activeLine(t);
    const answer = await heartbeat(t, line, { app_version: 'cellgate-termux/0.1.0', capabilities: TERMUX });
    assert.equal(answer.statusCode, 200);
    assert.equal(answer.json().cell_id, line.cell.id);
    assert.deepEqual((await cellOf(t, line)).capabilities, TERMUX);
    const listed = (await t.app.inject({ url: '/v1/cells', headers: line.org.headers })).json().cells;
    assert.deepEqual(listed.find((c: { id: string }) => c.id === line.cell.id).capabilities, TERMUX);
    const device = (await t.app.inject({ url: `/v1/admin/devices/${line.device.id}`, headers: admin })).json();
    assert.deepEqual(device.capabilities, TERMUX);
  });

  it('takes a capability left out of the statement as true', async () => {
    const line = await activeLine(t);
    assert.equal((await heartbeat(t, line, { capabilities: { mms_send: false } })).statusCode, 200);
    assert.deepEqual((await cellOf(t, line)).capabilities, {
      delivery_reports: true,
      mms_send: false,
      mms_receive: true,
    });
  });

  it('keeps the stated capabilities through heartbeats without them; an empty statement is all true again', async () => {
    const line = await activeLine(t);
    await heartbeat(t, line, { capabilities: TERMUX });
    assert.equal((await heartbeat(t, line, { battery_pct: 50 })).statusCode, 200);
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/v1/device/heartbeat', headers: line.device.headers })).statusCode,
      200,
    );
    assert.deepEqual((await cellOf(t, line)).capabilities, TERMUX);
    await heartbeat(t, line, { capabilities: {} });
    assert.deepEqual((await cellOf(t, line)).capabilities, ALL);
  });

  it('emits cell.updated with the new capabilities when they change, and nothing when the same are stated again', async () => {
    const line = await activeLine(t);
    const before = (await updatesOf(t, line.cell.id)).length;
    await heartbeat(t, line, { capabilities: ALL });
    assert.equal((await updatesOf(t, line.cell.id)).length, before, 'all true was already stored');
    await heartbeat(t, line, { capabilities: TERMUX });
    await heartbeat(t, line, { capabilities: TERMUX });
    await heartbeat(t, line, { battery_pct: 40 });
    const updates = await updatesOf(t, line.cell.id);
    assert.equal(updates.length, before + 1);
    assert.equal(updates.at(-1)?.organization_id, line.org.organizationId);
    assert.deepEqual(updates.at(-1)?.data.capabilities, TERMUX);
    await heartbeat(t, line, { capabilities: { delivery_reports: false, mms_send: false } });
    const again = await updatesOf(t, line.cell.id);
    assert.equal(again.length, before + 2);
    assert.deepEqual(again.at(-1)?.data.capabilities, { delivery_reports: false, mms_send: false, mms_receive: true });
  });

  it("stores a free phone's statement without an event, and its cell shows it once it carries one", async () => {
    const org = (await activeLine(t)).org;
    const device = await addDevice(t);
    const total = (await eventsOf(t, 'cell.updated')).length;
    const answer = await t.app.inject({
      method: 'POST',
      url: '/v1/device/heartbeat',
      headers: device.headers,
      payload: { capabilities: TERMUX },
    });
    assert.equal(answer.json().cell_id, null);
    assert.equal((await eventsOf(t, 'cell.updated')).length, total);
    const cell = await createCell(t, org.headers, 'On the Termux phone');
    assert.equal(cell.phone_number, device.phoneNumber);
    assert.deepEqual(cell.capabilities, TERMUX);
  });
});
