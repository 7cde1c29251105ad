import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, startApp, type TestApp } from '../../../test/harness.ts';
import { addDevice } from '../../../test/support/devices.ts';
import { activeLine, claim, queued, report, type Line } from '../../../test/support/messages.ts';

describe('device protocol: bad requests and foreign messages', () => {
  let t: TestApp;
  let line: Line;
  let other: Line;
  before(async () => {
    t = await startApp();
    line = await activeLine(t);
    other = await activeLine(t);
  });
  after(() => t.close());

  const outbound = (query: string, headers: Record<string, string> = line.device.headers) =>
    t.app.inject({ url: `/v1/device/messages/outbound${query}`, headers });
  const postEvent = (messageId: string, payload: unknown, headers: Record<string, string> = line.device.headers) =>
    t.app.inject({
      method: 'POST',
      url: `/v1/device/messages/${messageId}/events`,
      headers,
      payload: payload as Record<string, unknown>,
    });
  const upload = (payload: Record<string, unknown>, headers: Record<string, string> = line.device.headers) =>
    t.app.inject({ method: 'POST', url: '/v1/device/messages/inbound', headers, payload });
  const goodUpload = () => ({
    device_message_id: `u-${Math.random()}`,
    from: '+14155550301',
    body: 'hi',
    received_at: '2026-11-21T12:00:00.000Z',
  });
  const goodEvent = (event = 'sent') => ({
    event_id: `e-${Math.random()}`,
    event,
    occurred_at: '2026-11-21T12:00:00.000Z',
  });

  it('rejects out-of-range limit and wait', async () => {
    for (const query of ['?limit=0', '?limit=51', '?limit=x', '?wait=-1', '?wait=31', '?wait=1.5']) {
      expectProblem(await outbound(query), 400, 'invalid_request');
    }
  });

  it('needs a device key: none, an agent key or an unknown key is 401', async () => {
    expectProblem(await outbound('', {}), 401, 'unauthenticated');
    expectProblem(await outbound('', line.org.headers), 401, 'unauthenticated');
    expectProblem(
      await outbound('', { 'x-phone-key': 'cg_dev_unknown0000000000000000000000' }),
      401,
      'unauthenticated',
    );
    expectProblem(await upload(goodUpload(), line.org.headers), 401, 'unauthenticated');
  });

  it('rejects malformed event reports', async () => {
    const message = await queued(t, line, { to: '+14155550302', body: 'x' });
    await claim(t, line);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...goodEvent(), event: 'bounced' }, 'event'],
      [{ ...goodEvent(), event_id: '' }, 'event_id'],
      [{ ...goodEvent(), event_id: 'e'.repeat(256) }, 'event_id'],
      [{ ...goodEvent(), occurred_at: 'now' }, 'occurred_at'],
      [{ event: 'sent', occurred_at: '2026-11-21T12:00:00.000Z' }, 'event_id'],
      [{ ...goodEvent(), error_message: 'm'.repeat(501) }, 'error_message'],
      [{ ...goodEvent(), status: 'sent' }, 'status'],
    ];
    for (const [payload, field] of cases) {
      const body = expectProblem(await postEvent(message.id, payload), 400, 'invalid_request');
      assert.equal(body.errors[0].field, field);
    }
    const row = await t.database.db
      .selectFrom('messages')
      .select('status')
      .where('id', '=', message.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, 'sending');
  });

  it('answers 404 for an unknown message', async () => {
    expectProblem(await postEvent('msg_unknown', goodEvent()), 404, 'not_found');
  });

  it('answers 409 for a message leased to another device, and for one leased to nobody', async () => {
    const theirs = await queued(t, other, { to: '+14155550303', body: 'theirs' });
    await claim(t, other);
    const response = await postEvent(theirs.id, goodEvent('delivered'));
    expectProblem(response, 409, 'conflict');
    const stillQueued = await queued(t, line, { to: '+14155550304', body: 'not claimed' });
    expectProblem(await postEvent(stillQueued.id, goodEvent()), 409, 'conflict');
    const rows = await t.database.db
      .selectFrom('messages')
      .select(['id', 'status'])
      .where('id', 'in', [theirs.id, stillQueued.id])
      .execute();
    assert.deepEqual(rows.map((r) => r.status).sort(), ['queued', 'sending']);
    // A rejected report is not remembered: the rightful device may still use that event id.
    const ok = await postEvent(theirs.id, { ...goodEvent('sent'), event_id: 'shared-id' }, other.device.headers);
    assert.equal(ok.statusCode, 200);
  });

  it('answers 409 when an event_id is reused for a different message', async () => {
    const a = await queued(t, line, { to: '+14155550305', body: 'a' });
    const b = await queued(t, line, { to: '+14155550305', body: 'b' });
    await claim(t, line);
    assert.equal((await postEvent(a.id, { ...goodEvent(), event_id: 'reused' })).statusCode, 200);
    expectProblem(await postEvent(b.id, { ...goodEvent(), event_id: 'reused' }), 409, 'conflict');
    assert.equal((await report(t, line, b.id, { event: 'sent' })).json().status, 'sent');
  });

  it('rejects malformed inbound uploads without storing anything', async () => {
    const before = await t.database.db.selectFrom('messages').select('id').where('direction', '=', 'inbound').execute();
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ ...goodUpload(), from: '12345' }, 'from', 'invalid_phone_number'],
      [{ ...goodUpload(), from: '+15551234567' }, 'from', 'invalid_phone_number'],
      [{ ...goodUpload(), body: '' }, 'body', 'too_short'],
      [{ ...goodUpload(), body: 'b'.repeat(1601) }, 'body', 'too_long'],
      [{ ...goodUpload(), media_urls: ['http://cdn.example.com/x.jpg'] }, 'media_urls.0', 'invalid_format'],
      [{ ...goodUpload(), media_urls: Array(11).fill('https://cdn.example.com/x.jpg') }, 'media_urls', 'too_many'],
      [{ ...goodUpload(), received_at: 'yesterday' }, 'received_at', 'invalid_format'],
      [{ ...goodUpload(), device_message_id: '' }, 'device_message_id', 'too_short'],
      [{ ...goodUpload(), extra: 1 }, 'extra', 'unknown_field'],
    ];
    for (const [payload, field, code] of cases) {
      const body = expectProblem(await upload(payload), 400, 'invalid_request');
      assert.deepEqual(
        [body.errors[0].field, body.errors[0].code],
        [field, code],
        JSON.stringify(payload).slice(0, 80),
      );
    }
    const { device_message_id: _omit, ...missingId } = goodUpload();
    expectProblem(await upload(missingId), 400, 'invalid_request');
    const after = await t.database.db.selectFrom('messages').select('id').where('direction', '=', 'inbound').execute();
    assert.equal(after.length, before.length);
  });
});

describe('a device that carries no cell', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it('claims nothing and cannot upload inbound messages (409)', async () => {
    const device = await addDevice(t); // in the inventory, no cell yet
    const response = await t.app.inject({ url: '/v1/device/messages/outbound?limit=5', headers: device.headers });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { messages: [] });
    const upload = await t.app.inject({
      method: 'POST',
      url: '/v1/device/messages/inbound',
      headers: device.headers,
      payload: {
        device_message_id: 'x1',
        from: '+14155550310',
        body: 'hello',
        received_at: '2026-11-21T12:00:00.000Z',
      },
    });
    expectProblem(upload, 409, 'conflict');
  });
});
