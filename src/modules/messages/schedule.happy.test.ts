import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../../../test/harness.ts';
import { eventsOf } from '../../../test/support/cells.ts';
import { activeLine, claim, inbound, send, type Line } from '../../../test/support/messages.ts';

const HOUR = 60 * 60 * 1000;

describe('scheduled sends', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  const inAnHour = () => new Date(t.clock.now().getTime() + HOUR);
  const charged = async (messageId: string) =>
    (
      await t.database.db
        .selectFrom('ledger_entries')
        .select('id')
        .where('reference', '=', `message:${messageId}`)
        .execute()
    ).length +
    (await t.database.db.selectFrom('usage_records').select('message_id').where('message_id', '=', messageId).execute())
      .length;
  const read = async (line: Line, id: string) =>
    (await t.app.inject({ url: `/v1/cells/${line.cell.id}/messages/${id}`, headers: line.org.headers })).json();

  it('holds a send with send_at as scheduled, uncharged and unclaimable, then queues and charges it at send_at', async () => {
    const line = await activeLine(t);
    const at = inAnHour();
    const response = await send(t, line, { to: '+14155550123', body: 'later', send_at: at.toISOString() });
    assert.equal(response.statusCode, 202, response.body);
    const message = response.json();
    assert.equal(message.status, 'scheduled');
    assert.equal(message.send_at, at.toISOString());
    assert.equal(message.schedule_reason, 'send_at');
    assert.equal(await charged(message.id), 0, 'not charged before it is queued');
    assert.deepEqual(await claim(t, line), []);

    t.clock.advance(HOUR - 1);
    assert.equal(await t.services.scheduledSends.tick(), 0);
    assert.equal((await read(line, message.id)).status, 'scheduled');

    t.clock.advance(1);
    assert.equal(await t.services.scheduledSends.tick(), 1);
    const queued = await read(line, message.id);
    assert.equal(queued.status, 'queued');
    assert.ok((await charged(message.id)) > 0, 'charged when queued');
    // Its usage and its ledger debit are dated when it was charged, not when it was accepted.
    const records = (
      await t.app.inject({ url: `/v1/usage/records?cell_id=${line.cell.id}`, headers: line.org.headers })
    ).json().usage_records as { message_id: string; created_at: string }[];
    assert.equal(records.find((r) => r.message_id === message.id)?.created_at, at.toISOString());
    const debit = await t.database.db
      .selectFrom('ledger_entries')
      .select('created_at')
      .where('reference', '=', `message:${message.id}`)
      .executeTakeFirstOrThrow();
    assert.equal(new Date(debit.created_at).toISOString(), at.toISOString());
    const claimed = await claim(t, line);
    assert.deepEqual(
      claimed.map((m) => m.id),
      [message.id],
    );
  });

  it('takes send_at with any offset and answers it in UTC', async () => {
    const line = await activeLine(t);
    const at = new Date(t.clock.now().getTime() + 2 * HOUR);
    const local = new Date(at.getTime() - 5 * HOUR).toISOString().replace('Z', '-05:00');
    const message = (await send(t, line, { to: '+14155550123', body: 'offset', send_at: local })).json();
    assert.equal(message.send_at, at.toISOString());
  });

  it('cancels a scheduled message, which then never goes out', async () => {
    const line = await activeLine(t);
    const message = (
      await send(t, line, { to: '+14155550123', body: 'never', send_at: inAnHour().toISOString() })
    ).json();
    const cancel = await t.app.inject({
      method: 'POST',
      url: `/v1/cells/${line.cell.id}/messages/${message.id}/cancel`,
      headers: line.org.headers,
    });
    assert.equal(cancel.statusCode, 200, cancel.body);
    assert.equal(cancel.json().status, 'canceled');
    t.clock.advance(2 * HOUR);
    await t.services.scheduledSends.tick();
    assert.equal((await read(line, message.id)).status, 'canceled');
    assert.equal(await charged(message.id), 0);
  });

  it('schedules a reply with send_at', async () => {
    const line = await activeLine(t);
    const original = (await inbound(t, line, { from: '+14155550123', body: 'call me tomorrow' })).json();
    const at = inAnHour();
    const response = await t.app.inject({
      method: 'POST',
      url: `/v1/cells/${line.cell.id}/messages/${original.id}/reply`,
      headers: line.org.headers,
      payload: { body: 'good morning', send_at: at.toISOString() },
    });
    assert.equal(response.statusCode, 202, response.body);
    assert.equal(response.json().status, 'scheduled');
    assert.equal(response.json().to, '+14155550123');
  });

  it('fails a scheduled message whose recipient texted STOP before send_at, with message.failed', async () => {
    const line = await activeLine(t);
    const message = (
      await send(t, line, { to: '+14155550188', body: 'promo', send_at: inAnHour().toISOString() })
    ).json();
    assert.equal((await inbound(t, line, { from: '+14155550188', body: 'STOP' })).statusCode, 201);
    t.clock.advance(HOUR);
    assert.ok((await t.services.scheduledSends.tick()) >= 1);
    const failed = await read(line, message.id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error.code, 'recipient_opted_out');
    assert.ok((await eventsOf(t, 'message.failed')).some((e) => e.data.id === message.id));
    assert.equal(await charged(message.id), 0);
  });

  it('lists scheduled messages by status', async () => {
    const line = await activeLine(t);
    const message = (await send(t, line, { to: '+14155550123', body: 'x', send_at: inAnHour().toISOString() })).json();
    const list = await t.app.inject({
      url: `/v1/cells/${line.cell.id}/messages?status=scheduled`,
      headers: line.org.headers,
    });
    assert.deepEqual(
      list.json().messages.map((m: { id: string }) => m.id),
      [message.id],
    );
  });
});
