// A broadcast with send_at (contract §12): its messages are scheduled for then, queued and charged
// then; canceling the job cancels them; a ring takes no send_at; a bad send_at is 400; quiet hours
// hold its messages unless it was started with send_now.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, useApp } from '../../../test/harness.ts';
import { call, clientId, ok, podWithLines, recipients } from '../../../test/support/pods.ts';

const HOUR = 60 * 60 * 1000;

describe('broadcasts with send_at', () => {
  const t = useApp();

  const statuses = async (organizationId: string) =>
    (
      await t.database.db
        .selectFrom('messages')
        .select(['status', 'send_at'])
        .where('organization_id', '=', organizationId)
        .where('direction', '=', 'outbound')
        .execute()
    ).map((row) => row.status);
  /** Runs the cycle worker a few times: the job plans (queues or schedules) its messages. */
  const plan = async () => {
    for (let i = 0; i < 5; i++) await t.services.cycleWorker.tick();
  };

  it('schedules every message of the broadcast for send_at and queues them then', async () => {
    const { org, pod } = await podWithLines(t, 2);
    const sendAt = new Date(t.clock.now().getTime() + HOUR).toISOString();
    const job = await ok(
      t,
      org,
      'POST',
      `/v1/pods/${pod.id}/messages/cycle`,
      { mode: 'broadcast', body: 'Doors open at 9.', to: recipients(6), send_at: sendAt, client_id: clientId() },
      202,
    );
    assert.equal(job.send_at, sendAt);
    await plan();
    assert.deepEqual(await statuses(org.organizationId), Array(6).fill('scheduled'));
    t.clock.advance(HOUR);
    await t.services.scheduledSends.tick();
    assert.deepEqual(await statuses(org.organizationId), Array(6).fill('queued'));
  });

  it('cancels the scheduled messages with the job', async () => {
    const { org, pod } = await podWithLines(t, 1);
    const sendAt = new Date(t.clock.now().getTime() + HOUR).toISOString();
    const job = await ok(
      t,
      org,
      'POST',
      `/v1/pods/${pod.id}/messages/cycle`,
      { mode: 'broadcast', body: 'Sale', to: recipients(3), send_at: sendAt },
      202,
    );
    await plan();
    await ok(t, org, 'POST', `/v1/pods/${pod.id}/jobs/${job.id}/cancel`);
    assert.deepEqual(await statuses(org.organizationId), Array(3).fill('canceled'));
  });

  /** A broadcast of 4 started inside the pod's quiet hours: its messages' [status, schedule_reason]. */
  const broadcastInsideQuietHours = async (extra: Record<string, unknown>) => {
    const { org, pod } = await podWithLines(t, 2);
    const now = t.clock.now().getTime();
    const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
    await ok(t, org, 'PATCH', `/v1/pods/${pod.id}`, {
      quiet_hours: { start: hhmm(now - HOUR), end: hhmm(now + HOUR), time_zone: 'UTC' },
    });
    await ok(
      t,
      org,
      'POST',
      `/v1/pods/${pod.id}/messages/cycle`,
      { mode: 'broadcast', body: 'Hush', to: recipients(4), ...extra },
      202,
    );
    await plan();
    const rows = await t.database.db
      .selectFrom('messages')
      .select(['status', 'schedule_reason'])
      .where('organization_id', '=', org.organizationId)
      .where('direction', '=', 'outbound')
      .execute();
    return rows.map((row) => [row.status, row.schedule_reason]);
  };

  it("holds a broadcast's messages inside the pod's quiet hours until their end, as sends", async () => {
    assert.deepEqual(await broadcastInsideQuietHours({}), Array(4).fill(['scheduled', 'quiet_hours']));
  });

  it('sends a broadcast started with send_now inside quiet hours at once', async () => {
    assert.deepEqual(await broadcastInsideQuietHours({ send_now: true }), Array(4).fill(['queued', null]));
  });

  it('refuses a send_now that is not a boolean', async () => {
    const { org, pod } = await podWithLines(t, 2);
    const body = expectProblem(
      await call(t, org, 'POST', `/v1/pods/${pod.id}/messages/cycle`, {
        mode: 'broadcast',
        body: 'x',
        to: recipients(1),
        send_now: 'yes',
      }),
      400,
      'invalid_request',
    );
    assert.equal(body.errors[0].field, 'send_now');
  });

  it('refuses a bad send_at, and any send_at on a ring', async () => {
    const { org, pod } = await podWithLines(t, 2);
    const start = (payload: Record<string, unknown>) =>
      call(t, org, 'POST', `/v1/pods/${pod.id}/messages/cycle`, payload);
    for (const send_at of ['soon', new Date(t.clock.now().getTime() - 1).toISOString()]) {
      const body = expectProblem(
        await start({ mode: 'broadcast', body: 'x', to: recipients(1), send_at }),
        400,
        'invalid_request',
      );
      assert.equal(body.errors[0].field, 'send_at');
    }
    const ring = expectProblem(
      await start({ mode: 'ring', send_at: new Date(t.clock.now().getTime() + HOUR).toISOString() }),
      400,
      'invalid_request',
    );
    assert.equal(ring.errors[0].field, 'send_at');
  });
});
