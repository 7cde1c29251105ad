// Issue 33 §11: once a send is committed, nothing after it turns the answer into an error. The
// database fails every statement after the send's commit (as when its connections are killed):
// the answer is still 202 with the stored message. A send's pace is read in its transaction; a
// broadcast's (its pod's cells, read after the job is stored) is left out.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from '../../../test/harness.ts';
import { activeLine, inbound } from '../../../test/support/messages.ts';
import { call, clientId, createPod, ok } from '../../../test/support/pods.ts';
import { Statements } from '../../../test/support/statements.ts';

describe('a send whose database fails right after its commit', () => {
  const statements = new Statements();
  const t = useApp({ observe: statements.observe });

  /** Runs the request with the database failing after its commit; it answered 202, with what was stored. */
  async function committed(request: () => ReturnType<typeof call>) {
    const response = await statements.failingAfterCommit(request);
    assert.equal(response.statusCode, 202, response.body);
    // A retry with the same key replays the same answer.
    const replay = await request();
    assert.equal(replay.statusCode, 202, replay.body);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual(replay.json(), response.json());
    return { message: response.json(), pace: response.headers['ratelimit-limit'] };
  }

  it('answers a send, a reply and a draft send 202, each message stored', async () => {
    const line = await activeLine(t, { send_rate_per_minute: 5 });
    const cell = `/v1/cells/${line.cell.id}`;
    const key = () => ({ 'idempotency-key': clientId('key') });

    const sendKey = key();
    const sent = await committed(() =>
      call(t, line.org, 'POST', `${cell}/messages/send`, { to: '+14155550101', body: 'hi' }, sendKey),
    );
    const original = (await inbound(t, line, { from: '+14155550102', body: 'hello' })).json();
    const replyKey = key();
    const reply = await committed(() =>
      call(t, line.org, 'POST', `${cell}/messages/${original.id}/reply`, { body: 'hi back' }, replyKey),
    );
    const draft = await ok(
      t,
      line.org,
      'POST',
      `${cell}/drafts`,
      { client_id: clientId(), to: '+14155550103', body: 'x' },
      201,
    );
    const draftKey = key();
    const drafted = await committed(() => call(t, line.org, 'POST', `${cell}/drafts/${draft.id}/send`, {}, draftKey));
    for (const { message, pace } of [sent, reply, drafted]) {
      assert.equal(pace, '5', "the pace, read in the send's own transaction");
      const stored = await ok(t, line.org, 'GET', `${cell}/messages/${message.id}`);
      assert.equal(stored.status, 'queued');
    }
  });

  it('answers a broadcast 202, its job stored', async () => {
    const line = await activeLine(t, { send_rate_per_minute: 5 });
    const pod = await createPod(t, line.org, [line.cell.id]);
    const broadcastKey = { 'idempotency-key': clientId('key') };
    const job = await committed(() =>
      call(
        t,
        line.org,
        'POST',
        `/v1/pods/${pod.id}/messages/cycle`,
        { mode: 'broadcast', body: 'to all', to: ['+14155550104'] },
        broadcastKey,
      ),
    );
    assert.equal(job.pace, undefined, 'the pods’ pace, read after the commit, left out');
    assert.equal((await ok(t, line.org, 'GET', `/v1/pods/${pod.id}/jobs/${job.message.id}`)).id, job.message.id);
  });
});
