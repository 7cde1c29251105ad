import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { TestApp } from '../../../test/harness.ts';
import { activeLine, claim, type Line, queued, report, send, withLine } from '../../../test/support/messages.ts';

describe('sending messages', () => {
  let t: TestApp;
  let line: Line;
  withLine((app, started) => {
    t = app;
    line = started;
  });

  it('answers 202 with the queued message in the contract shape', async () => {
    const response = await send(t, line, {
      to: '+1 (415) 555-0142',
      body: 'Your table is ready.',
      media_urls: ['https://example.com/a.jpg'],
    });
    assert.equal(response.statusCode, 202);
    const message = response.json();
    assert.deepEqual(Object.keys(message).sort(), [
      'body',
      'cell_id',
      'code',
      'conversation_id',
      'created_at',
      'delivered_at',
      'direction',
      'error',
      'from',
      'id',
      'ignored',
      'media_urls',
      'received_at',
      'reply_to_message_id',
      'schedule_reason',
      'segments',
      'send_at',
      'sent_at',
      'status',
      'to',
      'updated_at',
    ]);
    assert.match(message.id, /^msg_/);
    assert.match(message.conversation_id, /^conv_/);
    assert.equal(message.cell_id, line.cell.id);
    assert.equal(message.direction, 'outbound');
    assert.equal(message.from, line.cell.phone_number);
    assert.equal(message.to, '+14155550142');
    assert.equal(message.status, 'queued');
    assert.equal(message.ignored, false);
    assert.equal(message.segments, 1);
    assert.deepEqual(message.media_urls, ['https://example.com/a.jpg']);
    assert.equal(message.error, null);
    assert.equal(message.created_at, t.clock.now().toISOString());
    const read = await t.app.inject({
      url: `/v1/cells/${line.cell.id}/messages/${message.id}`,
      headers: line.org.headers,
    });
    assert.equal(read.statusCode, 200);
    assert.deepEqual(read.json(), message);
  });

  it('counts segments: 161 GSM-7 characters are 2, 71 UCS-2 characters are 2', async () => {
    assert.equal((await queued(t, line, { to: '+14155550143', body: 'a'.repeat(161) })).segments, 2);
    assert.equal((await queued(t, line, { to: '+14155550143', body: 'ж'.repeat(71) })).segments, 2);
    assert.equal((await queued(t, line, { to: '+14155550143', body: 'x'.repeat(1600) })).segments, 11);
  });

  it('accepts exactly 10 media URLs of 2048 characters', async () => {
    const url = `https://example.com/${'m'.repeat(2048 - 'https://example.com/'.length)}`;
    const message = await queued(t, line, { to: '+14155550144', body: 'pics', media_urls: Array(10).fill(url) });
    assert.equal(message.media_urls.length, 10);
  });

  it('replays a send with the same Idempotency-Key: same status and body, Idempotent-Replayed, one message', async () => {
    const fresh = await activeLine(t);
    const payload = { to: '+14155550145', body: 'once' };
    const first = await send(t, fresh, payload, { 'idempotency-key': 'order-1' });
    const second = await send(t, fresh, payload, { 'idempotency-key': 'order-1' });
    assert.equal(first.statusCode, 202);
    assert.equal(second.statusCode, 202);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal(first.headers['idempotent-replayed'], undefined);
    assert.deepEqual(second.json(), first.json());
    assert.equal(second.body, first.body, 'the replay is byte for byte the first response');
    assert.equal(second.headers['content-type'], first.headers['content-type']);
    const list = await t.app.inject({ url: `/v1/cells/${fresh.cell.id}/messages`, headers: fresh.org.headers });
    assert.equal(list.json().messages.length, 1);
  });

  it('treats the same number written differently as the same idempotent request', async () => {
    const first = await send(t, line, { to: '+14155550146', body: 'same' }, { 'idempotency-key': 'fmt-1' });
    const second = await send(t, line, { to: '+1 415-555-0146', body: 'same' }, { 'idempotency-key': 'fmt-1' });
    assert.equal(second.statusCode, 202);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal(second.json().id, first.json().id);
  });

  it('creates exactly one message for concurrent requests with the same key', async () => {
    const fresh = await activeLine(t);
    const payload = { to: '+14155550147', body: 'race' };
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => send(t, fresh, payload, { 'idempotency-key': 'race-1' })),
    );
    const created = responses.filter((r) => r.statusCode === 202);
    assert.ok(created.length >= 1);
    for (const r of responses) assert.ok([202, 409].includes(r.statusCode), `${r.statusCode} ${r.body}`);
    for (const r of responses.filter((r) => r.statusCode === 409))
      assert.equal(r.json().code, 'idempotency_request_in_progress');
    assert.equal(new Set(created.map((r) => r.json().id)).size, 1);
    const rows = await t.database.db.selectFrom('messages').select('id').where('cell_id', '=', fresh.cell.id).execute();
    assert.equal(rows.length, 1);
  });

  it('replies to an inbound message: to is the sender, reply_to_message_id the original', async () => {
    const fresh = await activeLine(t);
    const upload = await t.app.inject({
      method: 'POST',
      url: '/v1/device/messages/inbound',
      headers: fresh.device.headers,
      payload: {
        device_message_id: 'in-1',
        from: '+14155550148',
        body: 'Is it open?',
        received_at: t.clock.now().toISOString(),
      },
    });
    assert.equal(upload.statusCode, 201);
    const original = upload.json();
    const response = await t.app.inject({
      method: 'POST',
      url: `/v1/cells/${fresh.cell.id}/messages/${original.id}/reply`,
      headers: { ...fresh.org.headers, 'idempotency-key': 'r-1' },
      payload: { body: 'Yes, until 9.' },
    });
    assert.equal(response.statusCode, 202);
    const replyMessage = response.json();
    assert.equal(replyMessage.to, '+14155550148');
    assert.equal(replyMessage.from, fresh.cell.phone_number);
    assert.equal(replyMessage.reply_to_message_id, original.id);
    assert.equal(replyMessage.conversation_id, original.conversation_id);
    assert.equal(replyMessage.status, 'queued');
    const again = await t.app.inject({
      method: 'POST',
      url: `/v1/cells/${fresh.cell.id}/messages/${original.id}/reply`,
      headers: { ...fresh.org.headers, 'idempotency-key': 'r-1' },
      payload: { body: 'Yes, until 9.' },
    });
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.json().id, replyMessage.id);
  });

  it('replies to an outbound message: to is its recipient', async () => {
    const original = await queued(t, line, { to: '+14155550149', body: 'first' });
    const response = await t.app.inject({
      method: 'POST',
      url: `/v1/cells/${line.cell.id}/messages/${original.id}/reply`,
      headers: line.org.headers,
      payload: { body: 'second' },
    });
    assert.equal(response.statusCode, 202);
    assert.equal(response.json().to, '+14155550149');
  });

  it('cancels a queued message (200, canceled) and a device never receives it', async () => {
    const fresh = await activeLine(t);
    const message = await queued(t, fresh, { to: '+14155550150', body: 'never mind' });
    const response = await t.app.inject({
      method: 'POST',
      url: `/v1/cells/${fresh.cell.id}/messages/${message.id}/cancel`,
      headers: fresh.org.headers,
    });
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().status, 'canceled');
    assert.deepEqual(await claim(t, fresh), []);
  });

  it('refuses to cancel a message once a device has it (409 conflict)', async () => {
    const fresh = await activeLine(t);
    const message = await queued(t, fresh, { to: '+14155550151', body: 'too late' });
    await claim(t, fresh);
    const cancel = () =>
      t.app.inject({
        method: 'POST',
        url: `/v1/cells/${fresh.cell.id}/messages/${message.id}/cancel`,
        headers: fresh.org.headers,
      });
    const sending = await cancel();
    assert.equal(sending.statusCode, 409);
    assert.equal(sending.json().code, 'conflict');
    assert.equal((await report(t, fresh, message.id, { event: 'delivered' })).statusCode, 200);
    assert.equal((await cancel()).statusCode, 409);
    const read = await t.app.inject({
      url: `/v1/cells/${fresh.cell.id}/messages/${message.id}`,
      headers: fresh.org.headers,
    });
    assert.equal(read.json().status, 'delivered');
  });

  it('sends accepted together are written as one batch: one conversation per participant, at its newest message', async () => {
    const recipients = ['+14155550181', '+14155550181', '+14155550182', '+14155550181', '+14155550182', '+14155550181'];
    const answers = await Promise.all(
      recipients.map((to, i) =>
        send(t, line, { to, body: `batch ${i}` }, i === 2 ? { 'idempotency-key': 'batched-key' } : {}),
      ),
    );
    assert.deepEqual(
      answers.map((a) => a.statusCode),
      recipients.map(() => 202),
    );
    const messages = answers.map((a) => a.json());
    for (const to of new Set(recipients)) {
      const mine = messages.filter((m) => m.to === to);
      assert.equal(new Set(mine.map((m) => m.conversation_id)).size, 1, `one conversation for ${to}`);
      const conversation = (
        await t.app.inject({
          url: `/v1/conversations/between?cell_id=${line.cell.id}&participant=${encodeURIComponent(to)}`,
          headers: line.org.headers,
        })
      ).json();
      assert.equal(conversation.conversation.id, mine[0].conversation_id);
      assert.equal(
        conversation.conversation.last_message_id,
        mine
          .map((m) => m.id)
          .sort()
          .at(-1),
      );
      assert.deepEqual(conversation.messages.map((m: { id: string }) => m.id).sort(), mine.map((m) => m.id).sort());
    }
    assert.notEqual(messages[0].conversation_id, messages[2].conversation_id);
    const replay = await send(t, line, { to: recipients[2], body: 'batch 2' }, { 'idempotency-key': 'batched-key' });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual(replay.json(), messages[2]);
  });
});
