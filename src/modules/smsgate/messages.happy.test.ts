// Sending through the SMSGate app (contract §13): GET /mobile/v1/message claims under the native
// surface's lease and pacing rules and answers the app's Message list; PATCH /mobile/v1/message
// moves each message as the app's states say (Processed, Sent with its time, Delivered, Failed
// with its error), repeats and late states change nothing.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, useApp, type TestApp } from '../../../test/harness.ts';
import { queued } from '../../../test/support/messages.ts';
import { mobileLine } from '../../../test/support/mobile.ts';

const sendFrom = (t: TestApp, line: Awaited<ReturnType<typeof mobileLine>>, body = 'hello') =>
  queued(t, line, { to: '+14155550199', body });

const claim = async (t: TestApp, headers: Record<string, string>, order = 'fifo') => {
  const response = await t.app.inject({ url: `/mobile/v1/message?order=${order}`, headers });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
};

const patch = (t: TestApp, headers: Record<string, string>, payload: unknown) =>
  t.app.inject({ method: 'PATCH', url: '/mobile/v1/message', headers, payload: payload as object });

const read = async (t: TestApp, line: Awaited<ReturnType<typeof mobileLine>>, id: string) =>
  (await t.app.inject({ url: `/v1/cells/${line.cell.id}/messages/${id}`, headers: line.org.headers })).json();

describe('SMSGate sending', () => {
  const t = useApp();

  it('claims as the app reads it: one number, the SIM of the cell, delivery reports, valid until it could be failed for good', async () => {
    const line = await mobileLine(t);
    const sent = await sendFrom(t, line, 'Your table is ready');
    const [message, ...rest] = await claim(t, line.phone.headers);
    assert.deepEqual(rest, []);
    assert.deepEqual(message, {
      id: sent.id,
      message: 'Your table is ready',
      textMessage: { text: 'Your table is ready' },
      phoneNumbers: ['+14155550199'],
      simNumber: 1,
      withDeliveryReport: true,
      isEncrypted: false,
      // Its lease (120 s) and one lease for each of the two attempts left.
      validUntil: new Date(t.clock.now().getTime() + 3 * 120_000).toISOString(),
      createdAt: sent.created_at,
    });
    assert.equal((await read(t, line, sent.id)).status, 'sending');
    // Claimed once: a second pull gets nothing.
    assert.deepEqual(await claim(t, line.phone.headers, 'lifo'), []);
  });

  it("validUntil shrinks with the attempts spent: a message's last claim is valid until its lease ends, when it fails", async () => {
    const line = await mobileLine(t);
    const sent = await sendFrom(t, line, 'Third time lucky');
    const validity: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const [message] = await claim(t, line.phone.headers);
      assert.equal(message.id, sent.id, `attempt ${attempt}`);
      validity.push(Date.parse(message.validUntil) - t.clock.now().getTime());
      // The phone never confirms: the lease runs out.
      t.clock.advance(120_001);
      await t.services.messageLeases.tick();
    }
    assert.deepEqual(validity, [360_000, 240_000, 120_000]);
    const failed = await read(t, line, sent.id);
    assert.equal(failed.status, 'failed');
  });

  it('Processed, Sent (its time), Delivered: delivered with sent_at and delivered_at from the app', async () => {
    const line = await mobileLine(t);
    const { id } = await sendFrom(t, line);
    await claim(t, line.phone.headers);
    const sentAt = '2026-01-01T00:00:01.000+00:00';
    const deliveredAt = '2026-01-01T00:00:04.500+00:00';
    const item = (state: string, states: Record<string, string>) => ({ id, state, recipients: [], states });
    assert.equal((await patch(t, line.phone.headers, [item('Processed', {})])).statusCode, 204);
    assert.equal((await read(t, line, id)).status, 'sending');
    assert.equal((await patch(t, line.phone.headers, [item('Sent', { Sent: sentAt })])).statusCode, 204);
    const sent = await read(t, line, id);
    assert.deepEqual([sent.status, sent.sent_at], ['sent', '2026-01-01T00:00:01.000Z']);
    const delivered = await patch(t, line.phone.headers, [item('Delivered', { Sent: sentAt, Delivered: deliveredAt })]);
    assert.equal(delivered.statusCode, 204);
    const view = await read(t, line, id);
    assert.deepEqual(
      [view.status, view.sent_at, view.delivered_at],
      ['delivered', '2026-01-01T00:00:01.000Z', '2026-01-01T00:00:04.500Z'],
    );
    // A repeat, and a late Failed, change nothing: delivered is final.
    await patch(t, line.phone.headers, [item('Delivered', { Delivered: deliveredAt })]);
    await patch(t, line.phone.headers, [
      { id, state: 'Failed', recipients: [{ phoneNumber: '+14155550199', state: 'Failed', error: 'late' }] },
    ]);
    assert.deepEqual(await read(t, line, id), view);
  });

  it('Delivered straight after the claim takes sent_at from states.Sent', async () => {
    const line = await mobileLine(t);
    const { id } = await sendFrom(t, line);
    await claim(t, line.phone.headers);
    await patch(t, line.phone.headers, [
      {
        id,
        state: 'Delivered',
        recipients: [],
        states: { Sent: '2026-01-01T00:00:02.000Z', Delivered: '2026-01-01T00:00:03.000Z' },
      },
    ]);
    const view = await read(t, line, id);
    assert.deepEqual(
      [view.status, view.sent_at, view.delivered_at],
      ['delivered', '2026-01-01T00:00:02.000Z', '2026-01-01T00:00:03.000Z'],
    );
  });

  it('Failed carries the recipient error, and counts against the phone like a native failure', async () => {
    const line = await mobileLine(t);
    const { id } = await sendFrom(t, line);
    await claim(t, line.phone.headers);
    const response = await patch(t, line.phone.headers, [
      {
        id,
        state: 'Failed',
        recipients: [{ phoneNumber: '+14155550199', state: 'Failed', error: 'RESULT_ERROR_GENERIC_FAILURE' }],
        states: {},
      },
    ]);
    assert.equal(response.statusCode, 204);
    const view = await read(t, line, id);
    assert.equal(view.status, 'failed');
    assert.deepEqual(view.error, { code: 'device_error', message: 'RESULT_ERROR_GENERIC_FAILURE' });
    const device = (await t.app.inject({ url: `/v1/admin/devices/${line.phone.id}`, headers: admin })).json();
    assert.equal(device.failed_24h, 1);
  });

  it('pacing counts the phone: a phone paced at 2 segments a minute gets two texts, the third waits', async () => {
    const line = await mobileLine(t);
    await t.app.inject({
      method: 'PATCH',
      url: `/v1/admin/devices/${line.phone.id}`,
      headers: admin,
      payload: { send_rate_per_minute: 2 },
    });
    for (const body of ['one', 'two', 'three']) await sendFrom(t, line, body);
    assert.deepEqual(
      (await claim(t, line.phone.headers)).map((m: { message: string }) => m.message),
      ['one', 'two'],
    );
    t.clock.advance(60_001);
    assert.deepEqual(
      (await claim(t, line.phone.headers)).map((m: { message: string }) => m.message),
      ['three'],
    );
  });

  it('order=lifo hands out the newest first, within the same pacing; fifo and no order the oldest first', async () => {
    const line = await mobileLine(t);
    await t.app.inject({
      method: 'PATCH',
      url: `/v1/admin/devices/${line.phone.id}`,
      headers: admin,
      payload: { send_rate_per_minute: 2 },
    });
    const bodies = (messages: { message: string }[]) => messages.map((m) => m.message);
    for (const body of ['one', 'two', 'three']) await sendFrom(t, line, body);
    assert.deepEqual(bodies(await claim(t, line.phone.headers, 'lifo')), ['three', 'two']);
    t.clock.advance(60_001);
    assert.deepEqual(bodies(await claim(t, line.phone.headers, 'lifo')), ['one']);

    t.clock.advance(60_001);
    for (const body of ['four', 'five']) await sendFrom(t, line, body);
    assert.deepEqual(bodies(await claim(t, line.phone.headers, 'fifo')), ['four', 'five']);
    t.clock.advance(60_001);
    for (const body of ['six', 'seven']) await sendFrom(t, line, body);
    const unordered = await t.app.inject({ url: '/mobile/v1/message', headers: line.phone.headers });
    assert.deepEqual(bodies(unordered.json()), ['six', 'seven']);
  });
});
