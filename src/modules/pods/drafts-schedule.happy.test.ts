// send_at and send_now on draft sends (contract §12), from a cell and from a pod.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, useApp } from '../../../test/harness.ts';
import { call, clientId, lines, ok, podWithLines } from '../../../test/support/pods.ts';

const HOUR = 60 * 60 * 1000;

describe('draft sends with send_at', () => {
  const t = useApp();

  const later = () => new Date(t.clock.now().getTime() + HOUR).toISOString();

  it('schedules a cell draft sent with send_at, and queues it at that time', async () => {
    const [line] = await lines(t, 1);
    const base = `/v1/cells/${line.cell.id}/drafts`;
    const draft = await ok(
      t,
      line.org,
      'POST',
      base,
      { client_id: clientId(), to: '+14155550143', body: 'Later' },
      201,
    );
    const sendAt = later();
    const message = await ok(t, line.org, 'POST', `${base}/${draft.id}/send`, { send_at: sendAt }, 202);
    assert.equal(message.status, 'scheduled');
    assert.equal(message.send_at, sendAt);
    assert.equal((await ok(t, line.org, 'GET', `${base}/${draft.id}`)).message_id, message.id);
    t.clock.advance(HOUR);
    await t.services.scheduledSends.tick();
    assert.equal((await ok(t, line.org, 'GET', `/v1/cells/${line.cell.id}/messages/${message.id}`)).status, 'queued');
  });

  it('schedules a pod draft sent with send_at; send_now passes the pod’s quiet hours', async () => {
    const { org, pod } = await podWithLines(t, 2);
    const base = `/v1/pods/${pod.id}/drafts`;
    const first = await ok(t, org, 'POST', base, { client_id: clientId(), to: '+14155550144', body: 'A' }, 201);
    const scheduled = await ok(t, org, 'POST', `${base}/${first.id}/send`, { send_at: later() }, 202);
    assert.equal(scheduled.status, 'scheduled');
    const now = t.clock.now().getTime();
    const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
    await ok(t, org, 'PATCH', `/v1/pods/${pod.id}`, {
      quiet_hours: { start: hhmm(now - HOUR), end: hhmm(now + HOUR), time_zone: 'UTC' },
    });
    const second = await ok(t, org, 'POST', base, { client_id: clientId(), to: '+14155550145', body: 'B' }, 201);
    const held = await ok(t, org, 'POST', `${base}/${second.id}/send`, undefined, 202);
    assert.equal(held.schedule_reason, 'quiet_hours');
    const third = await ok(t, org, 'POST', base, { client_id: clientId(), to: '+14155550146', body: 'C' }, 201);
    assert.equal((await ok(t, org, 'POST', `${base}/${third.id}/send`, { send_now: true }, 202)).status, 'queued');
  });

  it('refuses a bad send_at and leaves the draft a draft', async () => {
    const [line] = await lines(t, 1);
    const base = `/v1/cells/${line.cell.id}/drafts`;
    const draft = await ok(t, line.org, 'POST', base, { client_id: clientId(), to: '+14155550147', body: 'X' }, 201);
    for (const send_at of ['tomorrow', new Date(t.clock.now().getTime() - 1000).toISOString()]) {
      const body = expectProblem(
        await call(t, line.org, 'POST', `${base}/${draft.id}/send`, { send_at }),
        400,
        'invalid_request',
      );
      assert.equal(body.errors[0].field, 'send_at');
    }
    assert.equal((await ok(t, line.org, 'GET', `${base}/${draft.id}`)).status, 'draft');
  });
});
