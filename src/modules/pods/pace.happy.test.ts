// RateLimit-* headers (issue 26 §2) on draft sends (the pace of the cell the message goes out
// from) and on cycle jobs (the pod's active cells together), as on sends.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from '../../../test/harness.ts';
import { activeLine } from '../../../test/support/messages.ts';
import { call, clientId, createPod, ok } from '../../../test/support/pods.ts';

const pace = (response: { headers: Record<string, unknown> }) => [
  response.headers['ratelimit-limit'],
  response.headers['ratelimit-remaining'],
  response.headers['ratelimit-reset'],
];

describe('RateLimit headers of draft sends and cycle jobs', () => {
  const t = useApp();

  it("puts the cell's pace on a cell draft's send, and not on its replay", async () => {
    const line = await activeLine(t, { send_rate_per_minute: 3 });
    const base = `/v1/cells/${line.cell.id}/drafts`;
    const draft = await ok(t, line.org, 'POST', base, { client_id: clientId(), to: '+14155550101', body: 'hi' }, 201);
    const headers = { 'idempotency-key': clientId('key') };
    const sent = await call(t, line.org, 'POST', `${base}/${draft.id}/send`, {}, headers);
    assert.equal(sent.statusCode, 202, sent.body);
    assert.deepEqual(pace(sent), ['3', '2', '0']);
    const replay = await call(t, line.org, 'POST', `${base}/${draft.id}/send`, {}, headers);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.headers['ratelimit-limit'], undefined);
  });

  it("puts the pace of the cell the rotation picked on a pod draft's send", async () => {
    const slow = await activeLine(t, { send_rate_per_minute: 3 });
    const fast = await activeLine(t, { send_rate_per_minute: 7 }, slow.org);
    const pod = await createPod(t, slow.org, [slow.cell.id, fast.cell.id]);
    const base = `/v1/pods/${pod.id}/drafts`;
    const draft = await ok(t, slow.org, 'POST', base, { client_id: clientId(), to: '+14155550102', body: 'hi' }, 201);
    const sent = await call(t, slow.org, 'POST', `${base}/${draft.id}/send`);
    assert.equal(sent.statusCode, 202, sent.body);
    const rate = sent.json().cell_id === slow.cell.id ? 3 : 7;
    assert.deepEqual(pace(sent), [String(rate), String(rate - 1), '0']);
  });

  it("puts the pod's active cells' pace, together, on a broadcast and a ring", async () => {
    const first = await activeLine(t, { send_rate_per_minute: 3 });
    const second = await activeLine(t, { send_rate_per_minute: 5 }, first.org);
    const pod = await createPod(t, first.org, [first.cell.id, second.cell.id]);
    // One message already queued on the first cell: 2 + 5 more fit within the minute.
    const queued = await call(t, first.org, 'POST', `/v1/cells/${first.cell.id}/messages/send`, {
      to: '+14155550103',
      body: 'before',
    });
    assert.equal(queued.statusCode, 202, queued.body);
    const broadcast = await call(t, first.org, 'POST', `/v1/pods/${pod.id}/messages/cycle`, {
      mode: 'broadcast',
      body: 'to all',
      to: ['+14155550104', '+14155550105'],
    });
    assert.equal(broadcast.statusCode, 202, broadcast.body);
    assert.deepEqual(pace(broadcast), ['8', '7', '0']);
    const ring = await call(t, first.org, 'POST', `/v1/pods/${pod.id}/messages/cycle`, { mode: 'ring' });
    assert.equal(ring.statusCode, 202, ring.body);
    assert.deepEqual(pace(ring), ['8', '7', '0']);
  });
});
