import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from '../../../test/harness.ts';
import { eventsOf } from '../../../test/support/cells.ts';
import { inbound, queued } from '../../../test/support/messages.ts';
import { createPod, lines, ok } from '../../../test/support/pods.ts';

const SPAMMER = '+14155550177';

describe('ignore lists', () => {
  const t = useApp();

  it('ignores a participant on a cell (201, then 200), lists it, and removes it (204)', async () => {
    const [line] = await lines(t, 1);
    const base = `/v1/cells/${line.cell.id}/ignore`;
    const added = await ok(t, line.org, 'POST', base, { participant: '+1 (415) 555-0177' }, 201);
    assert.deepEqual(added, { participant: SPAMMER, created_at: t.clock.now().toISOString() });
    t.clock.advance(1000);
    assert.deepEqual(await ok(t, line.org, 'POST', base, { participant: SPAMMER }, 200), added);
    assert.deepEqual(await ok(t, line.org, 'GET', base), { ignored: [added], next_cursor: null });
    await ok(t, line.org, 'DELETE', `${base}/${encodeURIComponent(SPAMMER)}`, undefined, 204);
    assert.deepEqual((await ok(t, line.org, 'GET', base)).ignored, []);
    await ok(t, line.org, 'DELETE', `${base}/${encodeURIComponent(SPAMMER)}`, undefined, 204);
  });

  it("stores an ignored participant's texts with ignored: true, without an event, hidden from default listings", async () => {
    const [line] = await lines(t, 1);
    await ok(t, line.org, 'POST', `/v1/cells/${line.cell.id}/ignore`, { participant: SPAMMER }, 201);
    const before = (await eventsOf(t, 'message.received')).length;
    const upload = await inbound(t, line, { from: SPAMMER, body: 'Buy now' });
    assert.equal(upload.statusCode, 201);
    assert.equal(upload.json().ignored, true);
    assert.equal((await eventsOf(t, 'message.received')).length, before, 'no message.received');
    const base = `/v1/cells/${line.cell.id}`;
    assert.deepEqual((await ok(t, line.org, 'GET', `${base}/messages`)).messages, []);
    assert.deepEqual((await ok(t, line.org, 'GET', `${base}/conversations`)).conversations, []);
    const all = await ok(t, line.org, 'GET', `${base}/messages?include_ignored=true`);
    assert.deepEqual(
      all.messages.map((m: { body: string; ignored: boolean }) => [m.body, m.ignored]),
      [['Buy now', true]],
    );
    const conversations = await ok(t, line.org, 'GET', `${base}/conversations?include_ignored=true`);
    assert.equal(conversations.conversations.length, 1);
    const thread = `${base}/conversations/${conversations.conversations[0].id}/messages`;
    assert.deepEqual((await ok(t, line.org, 'GET', thread)).messages, []);
    assert.equal((await ok(t, line.org, 'GET', `${thread}?include_ignored=true`)).messages.length, 1);
    const between = `/v1/conversations/between?cell_id=${line.cell.id}&participant=${encodeURIComponent(SPAMMER)}`;
    assert.deepEqual((await ok(t, line.org, 'GET', between)).messages, []);
    assert.equal((await ok(t, line.org, 'GET', `${between}&include_ignored=true`)).messages.length, 1);
  });

  it('still sends to an ignored participant; texts from others keep their events', async () => {
    const [line] = await lines(t, 1);
    await ok(t, line.org, 'POST', `/v1/cells/${line.cell.id}/ignore`, { participant: SPAMMER }, 201);
    const sent = await queued(t, line, { to: SPAMMER, body: 'Please stop' });
    assert.equal(sent.status, 'queued');
    const before = (await eventsOf(t, 'message.received')).length;
    const friendly = await inbound(t, line, { from: '+14155550178', body: 'Hi!' });
    assert.equal(friendly.json().ignored, false);
    assert.equal((await eventsOf(t, 'message.received')).length, before + 1);
    const listed = await ok(t, line.org, 'GET', `/v1/cells/${line.cell.id}/messages`);
    assert.deepEqual(
      listed.messages.map((m: { body: string }) => m.body),
      ['Hi!', 'Please stop'],
    );
  });

  it('ignores a participant on every cell of a pod; texts after removal are ordinary again', async () => {
    const [a, b] = await lines(t, 2);
    const pod = await createPod(t, a.org, [a.cell.id, b.cell.id]);
    await ok(t, a.org, 'POST', `/v1/pods/${pod.id}/ignore`, { participant: SPAMMER }, 201);
    assert.equal((await inbound(t, a, { from: SPAMMER, body: 'one' })).json().ignored, true);
    assert.equal((await inbound(t, b, { from: SPAMMER, body: 'two' })).json().ignored, true);
    await ok(t, a.org, 'DELETE', `/v1/pods/${pod.id}/ignore/${encodeURIComponent(SPAMMER)}`, undefined, 204);
    assert.equal((await inbound(t, b, { from: SPAMMER, body: 'three' })).json().ignored, false);
    assert.deepEqual(
      (await ok(t, a.org, 'GET', `/v1/cells/${b.cell.id}/messages`)).messages.map((m: { body: string }) => m.body),
      ['three'],
    );
  });

  it('a STOP from an ignored participant still opts them out', async () => {
    const [line] = await lines(t, 1);
    await ok(t, line.org, 'POST', `/v1/cells/${line.cell.id}/ignore`, { participant: SPAMMER }, 201);
    await inbound(t, line, { from: SPAMMER, body: 'STOP' });
    const refused = await t.app.inject({
      method: 'POST',
      url: `/v1/cells/${line.cell.id}/messages/send`,
      headers: line.org.headers,
      payload: { to: SPAMMER, body: 'hello?' },
    });
    assert.equal(refused.statusCode, 409);
    assert.equal(refused.json().code, 'recipient_opted_out');
  });
});
