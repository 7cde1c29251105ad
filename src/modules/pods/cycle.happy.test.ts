import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../app.ts';
import { SimulatedNetwork } from '../../cli/device-simulator.ts';
import { startApp, useApp, type TestApp } from '../../../test/harness.ts';
import { eventsOf } from '../../../test/support/cells.ts';
import { claim, inbound, queued, report } from '../../../test/support/messages.ts';
import {
  call,
  clientId,
  createPod,
  ok,
  outboundByCellAndRecipient,
  podWithLines,
  recipients,
  runJob,
} from '../../../test/support/pods.ts';
import { listeningWorld, Reports, type World } from '../../../test/simulator/support.ts';
import { RING_HOP_TIMEOUT_MS } from './cycle-planner.ts';

const pendingOf = async (t: TestApp, jobId: string) =>
  (
    await t.database.db
      .selectFrom('cycle_job_items')
      .select('seq')
      .where('job_id', '=', jobId)
      .where('status', '=', 'pending')
      .execute()
  ).length;

describe('cycle jobs: a ring over simulated phones', () => {
  let world: World;
  before(async () => {
    world = await listeningWorld();
  });
  after(() => world.close());

  it('runs a ring over three phones end to end: every hop is received by the next cell, and cycle.completed follows', async () => {
    const { t, org } = world;
    const network = new SimulatedNetwork();
    const reports = new Reports();
    const cells = [await world.cell(), await world.cell(), await world.cell()];
    for (const cell of cells) await world.simulate(cell.device, { network, onReport: reports.record });
    const pod = await createPod(
      t,
      org,
      cells.map((cell) => cell.cellId),
    );
    const job = await ok(t, org, 'POST', `/v1/pods/${pod.id}/messages/cycle`, { mode: 'ring' }, 202);
    assert.deepEqual(job.counts, { total: 3, queued: 3, sent: 0, delivered: 0, received: 0, failed: 0, skipped: 0 });
    assert.equal(job.status, 'queued');
    await t.services.cycleWorker.tick();
    // The phones send the hops; each recipient phone uploads its text before the sender reports delivery.
    for (const cell of cells) {
      const [hop] = (await ok(t, org, 'GET', `/v1/cells/${cell.cellId}/messages?direction=outbound`)).messages;
      await reports.until(hop.id, 'delivered');
    }
    await t.services.cycleWorker.tick();
    const done = await ok(t, org, 'GET', `/v1/pods/${pod.id}/jobs/${job.id}`);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.counts, { total: 3, queued: 0, sent: 0, delivered: 0, received: 3, failed: 0, skipped: 0 });
    assert.equal(done.completed_at, t.clock.now().toISOString());
    // Each cell received the ring text from the cell before it.
    for (const [i, cell] of cells.entries()) {
      const previous = cells[(i + cells.length - 1) % cells.length];
      const received = await ok(t, org, 'GET', `/v1/cells/${cell.cellId}/messages?direction=inbound`);
      assert.deepEqual(
        received.messages.map((m: { from: string }) => m.from),
        [previous.phoneNumber],
      );
    }
    const [event] = (await eventsOf(t, 'cycle.completed')).filter((e) => e.data.id === job.id);
    assert.deepEqual(event.data, done);
  });
});

describe('cycle jobs: broadcasts and rings', () => {
  const t = useApp();

  it('broadcasts to 1,000 recipients over a 4-cell pod: even shares, and a sticky recipient keeps its cell', async () => {
    const { org, lines, pod } = await podWithLines(t, 4);
    const to = recipients(1_000);
    await queued(t, lines[3], { to: to[500], body: 'We talked before' });
    const job = await ok(
      t,
      org,
      'POST',
      `/v1/pods/${pod.id}/messages/cycle`,
      { mode: 'broadcast', body: 'Doors open at 9.', to: [...to, to[0]] },
      202,
    );
    assert.equal(job.mode, 'broadcast');
    assert.equal(job.counts.total, 1_000, 'one message per distinct number');
    while ((await pendingOf(t, job.id)) > 0) await t.services.cycleWorker.tick();
    const { total, perCell, perRecipient } = await outboundByCellAndRecipient(t, org.organizationId);
    assert.equal(total, 1_001);
    for (const line of lines) {
      const share = (perCell.get(line.cell.id) ?? 0) - (line === lines[3] ? 1 : 0);
      assert.ok(share >= 225 && share <= 275, `cell ${line.cell.id} sent ${share} of 1,000`);
    }
    assert.deepEqual(
      perRecipient.get(to[500]),
      [lines[3].cell.id, lines[3].cell.id],
      'the sticky recipient keeps its cell',
    );
    for (const number of to) if (number !== to[500]) assert.equal(perRecipient.get(number)?.length, 1, number);
    const read = await ok(t, org, 'GET', `/v1/pods/${pod.id}/jobs/${job.id}`);
    assert.equal(read.status, 'running');
    assert.deepEqual(read.counts, {
      total: 1_000,
      queued: 1_000,
      sent: 0,
      delivered: 0,
      received: 0,
      failed: 0,
      skipped: 0,
    });
  });

  it('skips recipients who texted STOP to a pod cell, follows deliveries, and completes (cycle.completed)', async () => {
    const { org, lines, pod } = await podWithLines(t, 2);
    const to = recipients(5, 2_000);
    assert.equal((await inbound(t, lines[1], { from: to[2], body: 'STOP' })).statusCode, 201);
    const job = await ok(
      t,
      org,
      'POST',
      `/v1/pods/${pod.id}/messages/cycle`,
      { mode: 'broadcast', body: 'News', to },
      202,
    );
    await t.services.cycleWorker.tick();
    const running = await ok(t, org, 'GET', `/v1/pods/${pod.id}/jobs/${job.id}`);
    assert.deepEqual(running.counts, {
      total: 5,
      queued: 4,
      sent: 0,
      delivered: 0,
      received: 0,
      failed: 0,
      skipped: 1,
    });
    for (const line of lines) {
      for (const message of await claim(t, line)) {
        const outcome =
          message.to === to[0] ? { event: 'failed', error_code: 'carrier_rejected' } : { event: 'delivered' };
        assert.equal((await report(t, line, message.id, outcome)).statusCode, 200);
      }
    }
    const done = await runJob(t, org, pod.id, job.id);
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.counts, { total: 5, queued: 0, sent: 0, delivered: 3, received: 0, failed: 1, skipped: 1 });
    assert.equal((await eventsOf(t, 'cycle.completed')).filter((e) => e.data.id === job.id).length, 1);
  });

  it('broadcasts to a contact list of the pod', async () => {
    const { org, pod } = await podWithLines(t, 2);
    const list = await ok(
      t,
      org,
      'POST',
      `/v1/pods/${pod.id}/lists`,
      { name: 'Regulars', numbers: recipients(30, 3_000) },
      201,
    );
    const job = await ok(
      t,
      org,
      'POST',
      `/v1/pods/${pod.id}/messages/cycle`,
      { mode: 'broadcast', body: 'Hi regulars', list_id: list.id },
      202,
    );
    assert.equal(job.counts.total, 30);
    await t.services.cycleWorker.tick();
    const { total, perRecipient } = await outboundByCellAndRecipient(t, org.organizationId);
    assert.equal(total, 30);
    assert.deepEqual([...perRecipient.keys()].sort(), list.numbers);
  });

  it('fails a ring whose hop is not received within the hop timeout (cycle.failed)', async () => {
    const { org, lines, pod } = await podWithLines(t, 2);
    const job = await ok(t, org, 'POST', `/v1/pods/${pod.id}/messages/cycle`, { mode: 'ring', body: 'ring ring' }, 202);
    await t.services.cycleWorker.tick();
    const [hop] = await claim(t, lines[0]);
    assert.equal(hop.to, lines[1].cell.phone_number);
    assert.equal(hop.body, 'ring ring');
    await report(t, lines[0], hop.id, { event: 'delivered' });
    await inbound(t, lines[1], { from: lines[0].cell.phone_number, body: 'ring ring' });
    await t.services.cycleWorker.tick();
    const half = await ok(t, org, 'GET', `/v1/pods/${pod.id}/jobs/${job.id}`);
    assert.deepEqual(half.counts, { total: 2, queued: 1, sent: 0, delivered: 0, received: 1, failed: 0, skipped: 0 });
    t.clock.advance(RING_HOP_TIMEOUT_MS);
    const done = await runJob(t, org, pod.id, job.id);
    assert.equal(done.status, 'failed');
    assert.deepEqual(done.counts, { total: 2, queued: 0, sent: 0, delivered: 0, received: 1, failed: 1, skipped: 0 });
    assert.deepEqual(await claim(t, lines[1]), [], 'the late hop was canceled before a phone took it');
    const [event] = (await eventsOf(t, 'cycle.failed')).filter((e) => e.data.id === job.id);
    assert.deepEqual(event.data, done);
  });

  it('cancels a broadcast half way: nothing more is queued and its queued messages are canceled', async () => {
    const { org, pod } = await podWithLines(t, 2);
    const job = await ok(
      t,
      org,
      'POST',
      `/v1/pods/${pod.id}/messages/cycle`,
      { mode: 'broadcast', body: 'Sale', to: recipients(700, 4_000) },
      202,
    );
    await t.services.cycleWorker.tick({ maxBatches: 1 });
    assert.equal(await pendingOf(t, job.id), 200);
    const canceled = await ok(t, org, 'POST', `/v1/pods/${pod.id}/jobs/${job.id}/cancel`);
    assert.equal(canceled.status, 'canceled');
    assert.equal(canceled.completed_at, t.clock.now().toISOString());
    assert.deepEqual(canceled.counts, {
      total: 700,
      queued: 0,
      sent: 0,
      delivered: 0,
      received: 0,
      failed: 0,
      skipped: 0,
    });
    await t.services.cycleWorker.tick();
    const statuses = await t.database.db
      .selectFrom('messages')
      .select('status')
      .where('organization_id', '=', org.organizationId)
      .execute();
    assert.equal(statuses.length, 500);
    assert.ok(statuses.every((m) => m.status === 'canceled'));
    assert.equal((await ok(t, org, 'GET', `/v1/pods/${pod.id}/jobs/${job.id}`)).status, 'canceled');
  });

  it('stops sending from a cell released during a broadcast: its queued messages fail, the rest go out from the others', async () => {
    // Phones whose day has room for all 600 (the planner queues no more than that, pace.ts).
    const { org, lines, pod } = await podWithLines(t, 2, { daily_send_limit: 1_000 });
    const job = await ok(
      t,
      org,
      'POST',
      `/v1/pods/${pod.id}/messages/cycle`,
      { mode: 'broadcast', body: 'Split', to: recipients(600, 8_000) },
      202,
    );
    await t.services.cycleWorker.tick({ maxBatches: 1 });
    await ok(t, org, 'DELETE', `/v1/cells/${lines[1].cell.id}`);
    await t.services.cycleWorker.tick();
    const { total, perCell } = await outboundByCellAndRecipient(t, org.organizationId);
    assert.equal(total, 600);
    assert.equal(perCell.get(lines[0].cell.id), 350);
    assert.equal(perCell.get(lines[1].cell.id), 250);
    const read = await ok(t, org, 'GET', `/v1/pods/${pod.id}/jobs/${job.id}`);
    assert.deepEqual(read.counts, {
      total: 600,
      queued: 350,
      sent: 0,
      delivered: 0,
      received: 0,
      failed: 250,
      skipped: 0,
    });
  });

  it('replays a start with the same Idempotency-Key or client_id (202, Idempotent-Replayed) without a second job', async () => {
    const { org, pod } = await podWithLines(t, 2);
    const url = `/v1/pods/${pod.id}/messages/cycle`;
    const first = await call(t, org, 'POST', url, { mode: 'ring' }, { 'idempotency-key': 'ring-1' });
    const again = await call(t, org, 'POST', url, { mode: 'ring' }, { 'idempotency-key': 'ring-1' });
    assert.equal(again.statusCode, 202);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    const body = { mode: 'broadcast', body: 'Once', to: recipients(3, 5_000), client_id: clientId('job') };
    const created = await call(t, org, 'POST', url, body);
    assert.equal(created.headers['idempotent-replayed'], undefined);
    const repeated = await call(t, org, 'POST', url, { ...body, to: [...body.to].reverse() });
    assert.equal(repeated.statusCode, 409, 'another order of numbers is another body');
    const same = await call(t, org, 'POST', url, body);
    assert.equal(same.statusCode, 202);
    assert.equal(same.headers['idempotent-replayed'], 'true');
    assert.equal(same.json().id, created.json().id);
    const jobs = await ok(t, org, 'GET', `/v1/pods/${pod.id}/jobs`);
    assert.deepEqual(
      jobs.jobs.map((j: { id: string }) => j.id),
      [created.json().id, first.json().id],
    );
  });

  it('deleting a pod cancels its open jobs', async () => {
    const { org, pod } = await podWithLines(t, 2);
    const job = await ok(t, org, 'POST', `/v1/pods/${pod.id}/messages/cycle`, { mode: 'ring' }, 202);
    await ok(t, org, 'DELETE', `/v1/pods/${pod.id}`, undefined, 204);
    const row = await t.database.db
      .selectFrom('cycle_jobs')
      .select('status')
      .where('id', '=', job.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, 'canceled');
    await t.services.cycleWorker.tick();
    assert.equal((await outboundByCellAndRecipient(t, org.organizationId)).total, 0, 'the ring never went out');
  });
});

describe('cycle jobs: restarts and several processes', () => {
  // A plain TestApp (not useApp's stand-in): a test spreads it into one for another process.
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  const sameDatabase = async () => {
    const { app, services } = await buildApp({
      config: t.config,
      database: t.database,
      clock: t.clock,
      mailer: t.mail,
      logger: false,
      workers: false,
    });
    await app.ready();
    return { app, services };
  };

  const assertEachOnce = async (organizationId: string, to: string[]) => {
    const { total, perRecipient } = await outboundByCellAndRecipient(t, organizationId);
    assert.equal(total, to.length);
    for (const number of to)
      assert.equal(
        perRecipient.get(number)?.length,
        1,
        `${number} got ${perRecipient.get(number)?.length ?? 0} messages`,
      );
  };

  it('a broadcast cut off by a dead process finishes in a new process, every recipient sent exactly once', async () => {
    // Phones whose day has room for their share (the planner queues no more than that, pace.ts).
    const { org, pod } = await podWithLines(t, 3, { daily_send_limit: 1_000 });
    const to = recipients(1_200, 6_000);
    const job = await ok(
      t,
      org,
      'POST',
      `/v1/pods/${pod.id}/messages/cycle`,
      { mode: 'broadcast', body: 'Restart-proof', to },
      202,
    );
    await t.services.cycleWorker.tick({ maxBatches: 1 });
    assert.equal(await pendingOf(t, job.id), 700);
    // The first process dies holding the job's lease, then its app is gone.
    await t.database.db
      .updateTable('cycle_jobs')
      .set({ lease_token: 'dead-process', lease_until: new Date(t.clock.now().getTime() + 60_000).toISOString() })
      .where('id', '=', job.id)
      .execute();
    await t.app.close();
    const second = await sameDatabase();
    try {
      assert.equal(await second.services.cycleWorker.tick(), 0, 'the lease still holds');
      t.clock.advance(60_000);
      while ((await pendingOf(t, job.id)) > 0) await second.services.cycleWorker.tick();
      await assertEachOnce(org.organizationId, to);
      const read = await second.app.inject({ url: `/v1/pods/${pod.id}/jobs/${job.id}`, headers: org.headers });
      assert.equal(read.json().counts.queued, 1_200);
    } finally {
      await second.app.close();
    }
  });

  it('two processes advancing one broadcast at once never send a recipient twice', async () => {
    const first = await sameDatabase();
    const second = await sameDatabase();
    try {
      const { org, pod } = await podWithLines({ ...t, app: first.app, services: first.services }, 3, {
        daily_send_limit: 1_000,
      });
      const to = recipients(1_500, 7_500);
      const job = await first.app.inject({
        method: 'POST',
        url: `/v1/pods/${pod.id}/messages/cycle`,
        headers: org.headers,
        payload: { mode: 'broadcast', body: 'Race', to },
      });
      assert.equal(job.statusCode, 202);
      // A lease of 0 ms is free again at once: both processes work on the job at the same time.
      while ((await pendingOf(t, job.json().id)) > 0) {
        await Promise.all([
          first.services.cycleWorker.tick({ leaseMs: 0, maxBatches: 1 }),
          second.services.cycleWorker.tick({ leaseMs: 0, maxBatches: 1 }),
        ]);
      }
      await assertEachOnce(org.organizationId, to);
    } finally {
      await first.app.close();
      await second.app.close();
    }
  });
});
