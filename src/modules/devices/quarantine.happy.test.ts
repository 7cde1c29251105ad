// SIM safety end to end (contract §11, issue 25 §3): a phone whose SIM the carrier blocked is
// degraded, then quarantined (its cell says so with cell.updated), claims nothing until the
// operator releases it, and a pod broadcast goes out through the other cells. Sends stuck in
// `sending` count too.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, startApp, type TestApp } from '../../../test/harness.ts';
import { eventsOf } from '../../../test/support/cells.ts';
import { activeLine, claim, queued, report, type Line } from '../../../test/support/messages.ts';
import { createPod, ok, recipients } from '../../../test/support/pods.ts';
import { listeningWorld, Reports, type World } from '../../../test/simulator/support.ts';
import { SimulatedNetwork } from '../../cli/device-simulator.ts';

async function device(t: TestApp, id: string) {
  return (await t.app.inject({ url: `/v1/admin/devices/${id}`, headers: admin })).json();
}

/** The health each cell.updated of the cell showed, repeats folded (joining a pod emits one too). */
async function cellHealthEvents(t: TestApp, cellId: string) {
  const shown = (await eventsOf(t, 'cell.updated')).filter((e) => e.data.id === cellId).map((e) => e.data.health);
  return shown.filter((health, i) => health !== shown[i - 1]);
}

describe('SIM safety over simulated phones', () => {
  let world: World;
  before(async () => {
    world = await listeningWorld();
  });
  after(() => world.close());

  it('quarantines a blocked SIM, and a pod broadcast finishes through the other cells', async () => {
    const { t, org } = world;
    const network = new SimulatedNetwork();
    const reports = new Reports();
    const cells = [await world.cell(), await world.cell(), await world.cell()];
    const phones = [];
    for (const cell of cells) phones.push(await world.simulate(cell.device, { network, onReport: reports.record }));
    const blocked = cells[1];
    phones[1].setFault('blocked_sim');

    // The carrier refuses everything the blocked phone sends.
    for (let i = 0; i < 5; i++) {
      const id = await world.send(blocked.cellId, `+1212555${String(9000 + i)}`, `hello ${i}`);
      await reports.until(id, 'failed');
      t.clock.advance(1_000);
    }
    const view = await device(t, blocked.device.id);
    assert.equal(view.health, 'quarantined');
    assert.match(view.health_reason, /^5 carrier-type failures in a row \(generic_failure\)/);
    assert.equal(view.failed_24h, 5);
    assert.deepEqual(await cellHealthEvents(t, blocked.cellId), ['degraded', 'quarantined']);
    const cell = await ok(t, org, 'GET', `/v1/cells/${blocked.cellId}`);
    assert.equal(cell.health, 'quarantined');

    // A pod broadcast never picks the quarantined cell.
    const pod = await createPod(
      t,
      org,
      cells.map((c) => c.cellId),
    );
    const to = recipients(12);
    const job = await ok(
      t,
      org,
      'POST',
      `/v1/pods/${pod.id}/messages/cycle`,
      { mode: 'broadcast', body: 'Doors open at 9.', to },
      202,
    );
    await t.services.cycleWorker.tick();
    const rows = await t.database.db
      .selectFrom('messages')
      .select(['id', 'cell_id'])
      .where('to_number', 'in', to)
      .execute();
    assert.equal(rows.length, 12);
    assert.ok(
      rows.every((row) => row.cell_id !== blocked.cellId),
      'nothing planned on the quarantined cell',
    );
    for (const row of rows) await reports.until(row.id, 'delivered');
    await t.services.cycleWorker.tick();
    const done = await ok(t, org, 'GET', `/v1/pods/${pod.id}/jobs/${job.id}`);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.counts.delivered, 12);

    // The operator releases it once the carrier unblocked the SIM: it sends again.
    phones[1].setFault(null);
    t.clock.advance(1_000);
    await ok(t, { headers: admin } as never, 'POST', `/v1/admin/devices/${blocked.device.id}/release`, {
      reason: 'carrier lifted the block',
    });
    t.clock.advance(1_000);
    const again = await world.send(blocked.cellId, '+12125559100', 'back');
    await reports.until(again, 'delivered');
    assert.equal((await device(t, blocked.device.id)).health, 'healthy');
    assert.deepEqual(await cellHealthEvents(t, blocked.cellId), ['degraded', 'quarantined', 'healthy']);
  });
});

describe('health from reports and lease expiry', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  async function failWith(line: Line, code: string) {
    const message = await queued(t, line, { to: '+14155550123', body: 'x' });
    const [claimed] = await claim(t, line);
    assert.equal(claimed.id, message.id);
    const response = await report(t, line, message.id, { event: 'failed', error_code: code });
    assert.equal(response.statusCode, 200, response.body);
    t.clock.advance(1_000);
  }

  async function succeed(line: Line) {
    const message = await queued(t, line, { to: '+14155550123', body: 'x' });
    await claim(t, line);
    assert.equal((await report(t, line, message.id, { event: 'sent' })).statusCode, 200);
    t.clock.advance(1_000);
  }

  it('degrades on carrier-type failures in a row and recovers by itself on good sends', async () => {
    const line = await activeLine(t);
    await failWith(line, 'network_reject');
    assert.equal((await device(t, line.device.id)).health, 'healthy');
    await failWith(line, 'generic_failure');
    const degraded = await device(t, line.device.id);
    assert.deepEqual(
      [degraded.health, degraded.health_reason],
      ['degraded', '2 carrier-type failures in a row (generic_failure)'],
    );
    // Degraded still claims.
    await succeed(line);
    for (let i = 0; i < 4; i++) await succeed(line);
    const recovered = await device(t, line.device.id);
    assert.deepEqual([recovered.health, recovered.sent_24h, recovered.failed_24h], ['healthy', 5, 2]);
    assert.deepEqual(await cellHealthEvents(t, line.cell.id), ['degraded', 'healthy']);
  });

  it('quarantines a phone whose sends get stuck in sending (leases run out), until released', async () => {
    const line = await activeLine(t);
    for (let i = 0; i < 3; i++) await queued(t, line, { to: '+14155550123', body: `stuck ${i}` });
    assert.equal((await claim(t, line)).length, 3);
    t.clock.advance(121_000);
    await t.services.delivery.expireLeases();
    const view = await device(t, line.device.id);
    assert.equal(view.health, 'quarantined');
    assert.match(view.health_reason, /^3 of the last sends stuck in sending/);
    assert.deepEqual(await claim(t, line), [], 'a quarantined phone claims nothing');
    const released = await t.app.inject({
      method: 'POST',
      url: `/v1/admin/devices/${line.device.id}/release`,
      headers: admin,
      payload: { reason: 'rebooted the phone' },
    });
    assert.equal(released.statusCode, 200, released.body);
    t.clock.advance(1_000);
    assert.equal((await claim(t, line)).length, 3, 'the re-queued texts go out after the release');
    assert.equal((await device(t, line.device.id)).health, 'healthy', 'old outcomes no longer count');
  });

  it('keeps failures that say nothing about the SIM out of the run', async () => {
    const line = await activeLine(t);
    for (let i = 0; i < 3; i++) await failWith(line, 'invalid_number');
    assert.equal((await device(t, line.device.id)).health, 'healthy');
  });
});
