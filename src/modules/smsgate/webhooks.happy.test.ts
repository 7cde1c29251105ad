// The webhooks the SMSGate app posts, signed (contract §13): sms:received is an inbound text on
// the cell of its SIM (a replay stores nothing new), sms:sent/delivered/failed move a claimed
// message as PATCH /message does, mms:received is an inbound notice, system:ping a heartbeat.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, useApp, type TestApp } from '../../../test/harness.ts';
import { queued } from '../../../test/support/messages.ts';
import { eventsOf } from '../../../test/support/cells.ts';
import { mobileLine, webhook } from '../../../test/support/mobile.ts';

type Line = Awaited<ReturnType<typeof mobileLine>>;

const inboundOf = async (t: TestApp, line: Line) =>
  (
    await t.app.inject({ url: `/v1/cells/${line.cell.id}/messages?direction=inbound`, headers: line.org.headers })
  ).json().messages as Array<{ body: string; from: string; received_at: string; status: string }>;

/** A text sent from a new SMSGate line's cell and claimed by its phone. */
async function claimedSend(t: TestApp) {
  const line = await mobileLine(t);
  const { id } = await queued(t, line, { to: '+14155550199', body: 'hello' });
  await t.app.inject({ url: '/mobile/v1/message', headers: line.phone.headers });
  return { line, id: id as string };
}

describe('SMSGate webhooks', () => {
  const t = useApp();

  it('sms:received on the SIM of the cell is an inbound message; a replay of the same event stores nothing new', async () => {
    const line = await mobileLine(t);
    const payload = {
      messageId: 'a1b2c3',
      message: 'Running late',
      sender: '+14155550123',
      recipient: null,
      simNumber: 1,
      phoneNumber: '+14155550123',
      receivedAt: '2026-01-01T00:00:05.000+00:00',
    };
    const first = await webhook(t, line.phone, 'sms:received', payload, { id: 'evt-received-1' });
    assert.equal(first.statusCode, 204, first.body);
    const replay = await webhook(t, line.phone, 'sms:received', payload, { id: 'evt-received-1' });
    assert.equal(replay.statusCode, 204, replay.body);
    const inbound = await inboundOf(t, line);
    assert.equal(inbound.length, 1);
    assert.deepEqual(
      [inbound[0].body, inbound[0].from, inbound[0].received_at, inbound[0].status],
      ['Running late', '+14155550123', '2026-01-01T00:00:05.000Z', 'received'],
    );
    const received = (await eventsOf(t, 'message.received')).filter((e) => e.data.cell_id === line.cell.id);
    assert.equal(received.length, 1);
  });

  it('sms:received is deduplicated on its messageId, not its envelope: a new envelope of the same text stores nothing new', async () => {
    const line = await mobileLine(t);
    const payload = {
      messageId: '5e1f02aa',
      message: 'Your code is 4821',
      sender: '+14155550124',
      recipient: null,
      simNumber: 1,
      phoneNumber: '+14155550124',
      receivedAt: '2026-01-01T00:00:07.000+00:00',
    };
    // The app's retry (same envelope id), a second sms:received webhook registration and a
    // reinstall's inbox export (new envelope ids, the same inbox hash): one text. The date is the
    // same instant in another offset, as a phone whose time zone changed writes it.
    for (const [id, receivedAt] of [
      ['evt-a', payload.receivedAt],
      ['evt-a', payload.receivedAt],
      ['evt-b', payload.receivedAt],
      ['evt-c', '2026-01-01T02:00:07.000+02:00'],
    ]) {
      const response = await webhook(t, line.phone, 'sms:received', { ...payload, receivedAt }, { id });
      assert.equal(response.statusCode, 204, `${id}: ${response.body}`);
    }
    assert.deepEqual(
      (await inboundOf(t, line)).map((m) => m.body),
      ['Your code is 4821'],
    );
    const received = (await eventsOf(t, 'message.received')).filter((e) => e.data.cell_id === line.cell.id);
    assert.equal(received.length, 1, 'message.received went out once');
    // Another text whose 32-bit hash happens to match, received at another time: a text of its own.
    const other = await webhook(t, line.phone, 'sms:received', {
      ...payload,
      message: 'Another text',
      receivedAt: '2026-01-01T00:09:00.000Z',
    });
    assert.equal(other.statusCode, 204, other.body);
    assert.equal((await inboundOf(t, line)).length, 2);
    // The same messageId and time with another text (a client that sends one id for every text): its own text too.
    const sameIdAndTime = await webhook(t, line.phone, 'sms:received', { ...payload, message: 'A third text' });
    assert.equal(sameIdAndTime.statusCode, 204, sameIdAndTime.body);
    assert.equal((await inboundOf(t, line)).length, 3);
  });

  it('sms:sent then sms:delivered move a claimed message, with the times the phone gives', async () => {
    const { line, id } = await claimedSend(t);
    const common = {
      messageId: id,
      sender: null,
      recipient: '+14155550199',
      simNumber: 1,
      phoneNumber: '+14155550199',
    };
    const sent = await webhook(t, line.phone, 'sms:sent', {
      ...common,
      partsCount: 1,
      sentAt: '2026-01-01T00:00:01.000Z',
    });
    assert.equal(sent.statusCode, 204, sent.body);
    const delivered = await webhook(t, line.phone, 'sms:delivered', {
      ...common,
      deliveredAt: '2026-01-01T00:00:02.000Z',
    });
    assert.equal(delivered.statusCode, 204, delivered.body);
    // The same state through PATCH afterwards is a repeat: nothing changes.
    await t.app.inject({
      method: 'PATCH',
      url: '/mobile/v1/message',
      headers: line.phone.headers,
      payload: [{ id, state: 'Delivered', recipients: [], states: { Delivered: '2026-01-01T00:00:09.000Z' } }],
    });
    const view = (
      await t.app.inject({ url: `/v1/cells/${line.cell.id}/messages/${id}`, headers: line.org.headers })
    ).json();
    assert.deepEqual(
      [view.status, view.sent_at, view.delivered_at],
      ['delivered', '2026-01-01T00:00:01.000Z', '2026-01-01T00:00:02.000Z'],
    );
  });

  it('sms:failed fails a claimed message with the reason', async () => {
    const { line, id } = await claimedSend(t);
    const failed = await webhook(t, line.phone, 'sms:failed', {
      messageId: id,
      recipient: '+14155550199',
      simNumber: 1,
      phoneNumber: '+14155550199',
      failedAt: '2026-01-01T00:00:01.000Z',
      reason: 'RESULT_ERROR_NO_SERVICE',
    });
    assert.equal(failed.statusCode, 204, failed.body);
    const view = (
      await t.app.inject({ url: `/v1/cells/${line.cell.id}/messages/${id}`, headers: line.org.headers })
    ).json();
    assert.deepEqual([view.status, view.error.message], ['failed', 'RESULT_ERROR_NO_SERVICE']);
  });

  it('mms:received is an inbound notice on the cell', async () => {
    const line = await mobileLine(t);
    const response = await webhook(t, line.phone, 'mms:received', {
      messageId: 'mms-1',
      sender: '+14155550123',
      recipient: null,
      simNumber: 1,
      phoneNumber: '+14155550123',
      transactionId: 'T1',
      subject: 'Photo',
      size: 20480,
      contentClass: null,
      receivedAt: '2026-01-01T00:00:05.000Z',
    });
    assert.equal(response.statusCode, 204, response.body);
    const [notice] = await inboundOf(t, line);
    assert.match(notice.body, /^\[MMS received: "Photo", 20480 bytes/);
  });

  it('system:ping is a heartbeat: battery, charging and the app version', async () => {
    const line = await mobileLine(t);
    const response = await webhook(t, line.phone, 'system:ping', {
      health: {
        status: 'pass',
        version: '1.68.0',
        releaseId: 68000,
        checks: {
          'battery:level': {
            status: 'pass',
            observedValue: 64,
            observedUnit: 'percent',
            description: 'Battery level in percent',
          },
          'battery:charging': {
            status: 'pass',
            observedValue: 5,
            observedUnit: 'flags',
            description: 'Is the phone charging?',
          },
        },
      },
    });
    assert.equal(response.statusCode, 204, response.body);
    const device = (await t.app.inject({ url: `/v1/admin/devices/${line.phone.id}`, headers: admin })).json();
    assert.deepEqual(
      [device.battery_pct, device.charging, device.app_version, device.online],
      [64, true, '1.68.0', true],
    );
    const history = (
      await t.app.inject({ url: `/v1/admin/devices/${line.phone.id}/heartbeats`, headers: admin })
    ).json();
    assert.equal(history.heartbeats[0].battery_pct, 64);
  });
});
