// The operator holds and releases phones (contract §11): pause / resume / release with a reason,
// recorded in the audit log; a paused or quarantined phone claims nothing and its heartbeat
// answer says why; the cell shows it (cell.updated); the admin Device carries the §11 fields.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, startApp, type TestApp } from '../../../test/harness.ts';
import { eventsOf } from '../../../test/support/cells.ts';
import { auditSinceAdded, heartbeat } from '../../../test/support/devices.ts';
import { activeLine, claim, inbound, queued, report, type Line } from '../../../test/support/messages.ts';

async function act(t: TestApp, line: Line, action: string, reason: string) {
  const response = await t.app.inject({
    method: 'POST',
    url: `/v1/admin/devices/${line.device.id}/${action}`,
    headers: admin,
    payload: { reason },
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

async function cellUpdates(t: TestApp, cellId: string) {
  return (await eventsOf(t, 'cell.updated')).filter((event) => event.data.id === cellId).map((e) => e.data.health);
}

describe('device pause, resume and release', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it('shows the §11 fields on the admin Device', async () => {
    const line = await activeLine(t);
    const view = (await t.app.inject({ url: `/v1/admin/devices/${line.device.id}`, headers: admin })).json();
    assert.deepEqual(
      {
        paused: view.paused,
        health: view.health,
        health_reason: view.health_reason,
        daily_send_limit: view.daily_send_limit,
        send_rate_per_minute: view.send_rate_per_minute,
        sent_24h: view.sent_24h,
        failed_24h: view.failed_24h,
        battery_pct: view.battery_pct,
        charging: view.charging,
        signal_dbm: view.signal_dbm,
      },
      {
        paused: false,
        health: 'healthy',
        health_reason: null,
        daily_send_limit: 300,
        send_rate_per_minute: 20,
        sent_24h: 0,
        failed_24h: 0,
        battery_pct: null,
        charging: null,
        signal_dbm: null,
      },
    );
    assert.deepEqual(view.capabilities, { delivery_reports: true, mms_send: true, mms_receive: true });
  });

  it('a paused phone claims nothing and its heartbeat says why; resumed, it claims the waiting text', async () => {
    const line = await activeLine(t);
    const message = await queued(t, line, { to: '+14155550199', body: 'hello' });
    const paused = await act(t, line, 'pause', 'SIM swap in slot 3');
    assert.deepEqual([paused.paused, paused.paused_reason], [true, 'SIM swap in slot 3']);
    assert.deepEqual(await claim(t, line), []);
    const config = await heartbeat(t, line.device.headers);
    assert.equal(config.paused, true);
    assert.deepEqual(config.hold, { code: 'paused', reason: 'SIM swap in slot 3' });
    const cell = (await t.app.inject({ url: `/v1/cells/${line.cell.id}`, headers: line.org.headers })).json();
    assert.equal(cell.health, 'paused');

    const resumed = await act(t, line, 'resume', 'new SIM in');
    assert.deepEqual([resumed.paused, resumed.paused_reason], [false, null]);
    assert.equal((await heartbeat(t, line.device.headers)).hold, null);
    assert.deepEqual(
      (await claim(t, line)).map((m) => m.id),
      [message.id],
    );
    assert.deepEqual(await cellUpdates(t, line.cell.id), ['paused', 'healthy']);

    assert.deepEqual(
      (await auditSinceAdded(t, line.device.id)).map((entry) => [entry.action, entry.reason]),
      [
        ['device.resume', 'new SIM in'],
        ['device.pause', 'SIM swap in slot 3'],
      ],
    );
  });

  it('a quarantined phone claims nothing until released; the release is audited and clears the reason', async () => {
    const line = await activeLine(t);
    await t.database.db
      .updateTable('devices')
      .set({ health: 'quarantined', health_reason: '5 carrier failures in a row (generic_failure)' })
      .where('id', '=', line.device.id)
      .execute();
    t.services.devices.forgetAssignment(line.device.id);
    const message = await queued(t, line, { to: '+14155550199', body: 'hello' });
    assert.deepEqual(await claim(t, line), []);
    assert.deepEqual((await heartbeat(t, line.device.headers)).hold, {
      code: 'quarantined',
      reason: '5 carrier failures in a row (generic_failure)',
    });
    const released = await act(t, line, 'release', 'carrier unblocked the SIM');
    assert.deepEqual(
      [released.health, released.health_reason, released.health_changed_at],
      ['healthy', null, t.clock.now().toISOString()],
    );
    const [claimed] = await claim(t, line);
    assert.equal(claimed.id, message.id);
    const sent = await report(t, line, message.id, { event: 'sent' });
    assert.equal(sent.statusCode, 200);
  });

  it('a paused or a quarantined phone still receives: its texts are stored on its cell and emitted (issue 33)', async () => {
    const line = await activeLine(t);
    await act(t, line, 'pause', 'SIM swap in slot 3');
    const whilePaused = await inbound(t, line, {
      device_message_id: 'paused-1',
      from: '+14155550123',
      body: 'reply while paused',
      received_at: t.clock.now().toISOString(),
    });
    assert.equal(whilePaused.statusCode, 201, whilePaused.body);
    assert.equal(whilePaused.json().cell_id, line.cell.id);
    await act(t, line, 'resume', 'back');
    await t.database.db
      .updateTable('devices')
      .set({ health: 'quarantined', health_reason: '5 carrier failures in a row (generic_failure)' })
      .where('id', '=', line.device.id)
      .execute();
    t.services.devices.forgetAssignment(line.device.id);
    const whileQuarantined = await inbound(t, line, {
      device_message_id: 'quarantined-1',
      from: '+14155550123',
      body: 'your code is 123456',
      received_at: t.clock.now().toISOString(),
    });
    assert.equal(whileQuarantined.statusCode, 201, whileQuarantined.body);
    const received = (await eventsOf(t, 'message.received')).filter((e) => e.data.cell_id === line.cell.id);
    assert.deepEqual(
      received.map((e) => e.data.body),
      ['reply while paused', 'your code is 123456'],
    );
    // Still no sending: the quarantined phone claims nothing.
    await queued(t, line, { to: '+14155550199', body: 'hello' });
    assert.deepEqual(await claim(t, line), []);
  });

  it('PATCH sets the daily limit in segments', async () => {
    const line = await activeLine(t);
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/v1/admin/devices/${line.device.id}`,
      headers: admin,
      payload: { daily_send_limit: 120 },
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().daily_send_limit, 120);
    assert.equal((await heartbeat(t, line.device.headers)).daily_send_limit, 120);
  });
});
