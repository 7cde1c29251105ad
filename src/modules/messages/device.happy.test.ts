import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../app.ts';
import { startApp, type TestApp } from '../../../test/harness.ts';
import { eventsOf } from '../../../test/support/cells.ts';
import { activeLine, claim, inbound, type Line, queued, report, withLine } from '../../../test/support/messages.ts';

/** Resolves once `count` claims are in progress in the app (the request reached the handler). */
async function pollsInProgress(t: TestApp, count: number) {
  const deadline = Date.now() + 5000;
  while (t.services.delivery.activePolls !== count) {
    if (Date.now() > deadline)
      throw new Error(`expected ${count} polls in progress, have ${t.services.delivery.activePolls}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const read = (t: TestApp, line: Line, id: string) =>
  t.app.inject({ url: `/v1/cells/${line.cell.id}/messages/${id}`, headers: line.org.headers }).then((r) => r.json());

describe('device claims', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    t = await startApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  after(() => t.close());

  // One socket per request (no keep-alive pool), so hanging up closes exactly that connection.
  const poll = (line: Line, query: string, signal?: AbortSignal) =>
    new Promise<Array<{ id: string }>>((resolve, reject) => {
      const request = http.get(
        `${base}/v1/device/messages/outbound${query}`,
        { headers: line.device.headers, agent: false, signal },
        (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => {
            if (response.statusCode !== 200) reject(new Error(`${response.statusCode} ${body}`));
            else resolve(JSON.parse(body).messages);
          });
        },
      );
      request.on('error', reject);
    });

  it('leases the oldest queued messages for 120 s, up to limit', async () => {
    const line = await activeLine(t);
    const sent = [];
    for (let i = 0; i < 4; i++) {
      sent.push(await queued(t, line, { to: '+14155550100', body: `m${i}` }));
      t.clock.advance(1);
    }
    const first = await claim(t, line, '?limit=3');
    assert.deepEqual(
      first.map((m) => m.id),
      sent.slice(0, 3).map((m) => m.id),
    );
    for (const m of first) {
      assert.equal(m.status, 'sending');
      assert.equal(m.lease_expires_at, new Date(t.clock.now().getTime() + 120_000).toISOString());
    }
    assert.deepEqual(
      (await claim(t, line)).map((m) => m.id),
      [sent[3].id],
    );
    assert.deepEqual(await claim(t, line), []);
    assert.equal((await read(t, line, sent[0].id)).status, 'sending');
  });

  it('never hands the same message to two parallel pollers', async () => {
    const line = await activeLine(t, { send_rate_per_minute: 30 });
    const ids = new Set<string>();
    // 30 one-segment texts: the most a phone is handed in a minute.
    for (let i = 0; i < 30; i++) ids.add((await queued(t, line, { to: '+14155550101', body: `p${i}` })).id);
    const batches = await Promise.all(Array.from({ length: 8 }, () => poll(line, '?limit=7')));
    const claimed = batches.flat().map((m) => m.id);
    assert.equal(claimed.length, 30);
    assert.equal(new Set(claimed).size, 30);
    assert.deepEqual(new Set(claimed), ids);
    const rows = await t.database.db
      .selectFrom('messages')
      .select(['status', 'attempts'])
      .where('cell_id', '=', line.cell.id)
      .execute();
    assert.ok(rows.every((r) => r.status === 'sending' && r.attempts === 1));
  });

  it('long-polls: a send wakes a waiting poller at once', async () => {
    const line = await activeLine(t);
    const started = Date.now();
    const waiting = poll(line, '?wait=10');
    await pollsInProgress(t, 1);
    const message = await queued(t, line, { to: '+14155550102', body: 'wake up' });
    const messages = await waiting;
    assert.deepEqual(
      messages.map((m) => m.id),
      [message.id],
    );
    assert.ok(Date.now() - started < 2000, 'answered long before wait elapsed');
  });

  it('long-polls: answers an empty list once wait elapses', async () => {
    const line = await activeLine(t);
    const started = Date.now();
    assert.deepEqual(await poll(line, '?wait=1'), []);
    assert.ok(Date.now() - started >= 950);
  });

  it('stops waiting when the device hangs up, leaving later messages queued', async () => {
    const line = await activeLine(t);
    const gone = new AbortController();
    const waiting = poll(line, '?wait=30', gone.signal).catch((error: Error) => error.name);
    await pollsInProgress(t, 1);
    gone.abort();
    assert.equal(await waiting, 'AbortError');
    await pollsInProgress(t, 0);
    const message = await queued(t, line, { to: '+14155550103', body: 'after hang-up' });
    assert.equal((await read(t, line, message.id)).status, 'queued');
  });

  it('hands out at most send_rate_per_minute messages in any 60 s window', async () => {
    const line = await activeLine(t, { send_rate_per_minute: 3 });
    for (let i = 0; i < 6; i++) await queued(t, line, { to: '+14155550104', body: `r${i}` });
    assert.equal((await claim(t, line, '?limit=2')).length, 2);
    t.clock.advance(30_000);
    assert.equal((await claim(t, line, '?limit=10')).length, 1);
    assert.equal((await claim(t, line, '?limit=10')).length, 0);
    t.clock.advance(30_001); // the first two left the window, the third has not
    assert.equal((await claim(t, line, '?limit=10')).length, 2);
    assert.equal((await claim(t, line, '?limit=10')).length, 0);
    t.clock.advance(30_000);
    assert.equal((await claim(t, line, '?limit=10')).length, 1);
  });
});

describe('shutting down with a device waiting', () => {
  it('answers the long-poll with an empty list instead of holding the close', async () => {
    const t = await startApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const line = await activeLine(t);
    const port = (t.app.server.address() as AddressInfo).port;
    const waiting = fetch(`http://127.0.0.1:${port}/v1/device/messages/outbound?wait=30`, {
      headers: line.device.headers,
    });
    await pollsInProgress(t, 1);
    const started = Date.now();
    const closed = t.close();
    const response = await waiting;
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { messages: [] });
    await closed;
    assert.ok(Date.now() - started < 5000);
  });
});

describe('device reports', () => {
  let t: TestApp;
  let line: Line;
  withLine(
    (app, started) => {
      t = app;
      line = started;
    },
    { send_rate_per_minute: 30 },
  );

  async function leased(body = 'hello') {
    const message = await queued(t, line, { to: '+14155550110', body });
    const [claimed] = await claim(t, line);
    assert.equal(claimed.id, message.id);
    return message;
  }

  it('sent then delivered: timestamps from the reports, one event each with the message view', async () => {
    const message = await leased();
    const sentAt = '2026-11-21T12:00:01.000Z';
    const deliveredAt = '2026-11-21T12:00:03.000Z';
    const sent = await report(t, line, message.id, { event: 'sent', occurred_at: sentAt });
    assert.equal(sent.statusCode, 200);
    assert.equal(sent.json().status, 'sent');
    assert.equal(sent.json().sent_at, sentAt);
    const delivered = await report(t, line, message.id, {
      event: 'delivered',
      occurred_at: '2026-11-21T13:00:03+01:00',
    });
    assert.equal(delivered.json().status, 'delivered');
    assert.equal(delivered.json().delivered_at, deliveredAt);
    assert.equal(delivered.json().sent_at, sentAt);
    const sentEvents = (await eventsOf(t, 'message.sent')).filter((e) => e.data.id === message.id);
    const deliveredEvents = (await eventsOf(t, 'message.delivered')).filter((e) => e.data.id === message.id);
    assert.equal(sentEvents.length, 1);
    assert.equal(deliveredEvents.length, 1);
    assert.equal(sentEvents[0].data.status, 'sent');
    assert.deepEqual(deliveredEvents[0].data, await read(t, line, message.id));
    assert.equal(deliveredEvents[0].organization_id, line.org.organizationId);
  });

  it('accepts delivered straight after sending and fills sent_at', async () => {
    const message = await leased();
    const delivered = await report(t, line, message.id, {
      event: 'delivered',
      occurred_at: '2026-11-21T12:00:05.000Z',
    });
    assert.equal(delivered.statusCode, 200);
    assert.equal(delivered.json().status, 'delivered');
    assert.equal(delivered.json().sent_at, '2026-11-21T12:00:05.000Z');
  });

  it('a late sent after delivered changes nothing (200, unchanged, no event)', async () => {
    const message = await leased();
    const delivered = (await report(t, line, message.id, { event: 'delivered' })).json();
    const late = await report(t, line, message.id, { event: 'sent', occurred_at: '2026-11-21T11:59:00.000Z' });
    assert.equal(late.statusCode, 200);
    assert.deepEqual(late.json(), delivered);
    assert.equal((await eventsOf(t, 'message.sent')).filter((e) => e.data.id === message.id).length, 0);
  });

  it('failed records the device error and emits message.failed; nothing changes it afterwards', async () => {
    const message = await leased();
    const failed = await report(t, line, message.id, {
      event: 'failed',
      error_code: 'radio_off',
      error_message: 'Airplane mode',
    });
    assert.equal(failed.json().status, 'failed');
    assert.deepEqual(failed.json().error, { code: 'radio_off', message: 'Airplane mode' });
    for (const event of ['delivered', 'sent', 'sending', 'failed']) {
      const late = await report(t, line, message.id, { event, error_code: 'other' });
      assert.equal(late.statusCode, 200);
      assert.deepEqual(late.json(), failed.json());
    }
    assert.equal((await eventsOf(t, 'message.failed')).filter((e) => e.data.id === message.id).length, 1);
  });

  it('failed without details gets a generic device_error', async () => {
    const message = await leased();
    const failed = await report(t, line, message.id, { event: 'failed' });
    assert.equal(failed.json().error.code, 'device_error');
  });

  it('sending changes nothing and a sending after sent never moves back', async () => {
    const message = await leased();
    assert.equal((await report(t, line, message.id, { event: 'sending' })).json().status, 'sending');
    await report(t, line, message.id, { event: 'sent' });
    assert.equal((await report(t, line, message.id, { event: 'sending' })).json().status, 'sent');
  });

  it('a repeated event_id answers the same result without applying it again', async () => {
    const message = await leased();
    const body = { event_id: 'dup-1', event: 'sent', occurred_at: '2026-11-21T12:00:01.000Z' };
    const post = () =>
      t.app.inject({
        method: 'POST',
        url: `/v1/device/messages/${message.id}/events`,
        headers: line.device.headers,
        payload: body,
      });
    const first = await post();
    const second = await post();
    assert.equal(second.statusCode, 200);
    assert.deepEqual(second.json(), first.json());
    assert.equal((await eventsOf(t, 'message.sent')).filter((e) => e.data.id === message.id).length, 1);
    const rows = await t.database.db.selectFrom('device_events').selectAll().where('event_id', '=', 'dup-1').execute();
    assert.equal(rows.length, 1);
  });
});

describe('inbound uploads', () => {
  let t: TestApp;
  let line: Line;
  withLine((app, started) => {
    t = app;
    line = started;
  });

  it('stores the message (201), and a repeated device_message_id answers 200 with the same message', async () => {
    const payload = {
      device_message_id: 'sms-42',
      from: '+1 415 555 0120',
      body: 'Hi there',
      media_urls: ['https://cdn.example.com/p.jpg'],
      received_at: '2026-11-21T11:59:58.000Z',
    };
    const upload = () =>
      t.app.inject({ method: 'POST', url: '/v1/device/messages/inbound', headers: line.device.headers, payload });
    const first = await upload();
    assert.equal(first.statusCode, 201);
    const message = first.json();
    assert.equal(message.direction, 'inbound');
    assert.equal(message.status, 'received');
    assert.equal(message.from, '+14155550120');
    assert.equal(message.to, line.cell.phone_number);
    assert.equal(message.received_at, '2026-11-21T11:59:58.000Z');
    assert.deepEqual(message.media_urls, ['https://cdn.example.com/p.jpg']);
    const again = await upload();
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json(), message);
    const parallel = await Promise.all([upload(), upload(), upload()]);
    assert.ok(parallel.every((r) => r.statusCode === 200 && r.json().id === message.id));
    const rows = await t.database.db
      .selectFrom('messages')
      .select('id')
      .where('device_message_id', '=', 'sms-42')
      .execute();
    assert.equal(rows.length, 1);
    const received = (await eventsOf(t, 'message.received')).filter((e) => e.data.id === message.id);
    assert.equal(received.length, 1);
    assert.deepEqual(received[0].data, message);
  });

  it('files the message in the conversation with the sender and moves it to the top', async () => {
    const out = await queued(t, line, { to: '+14155550121', body: 'question?' });
    t.clock.advance(1000);
    const reply = (await inbound(t, line, { from: '+14155550121', body: 'answer' })).json();
    assert.equal(reply.conversation_id, out.conversation_id);
    const conversations = (
      await t.app.inject({ url: `/v1/cells/${line.cell.id}/conversations`, headers: line.org.headers })
    ).json().conversations;
    assert.equal(conversations[0].id, out.conversation_id);
    assert.equal(conversations[0].last_message_id, reply.id);
    assert.equal(conversations[0].last_message_at, reply.created_at);
  });

  it('accepts an MMS without text', async () => {
    const response = await inbound(t, line, {
      from: '+14155550122',
      body: '',
      media_urls: ['https://cdn.example.com/q.jpg'],
    });
    assert.equal(response.statusCode, 201);
    assert.equal(response.json().segments, 0);
  });
});

describe('two processes on one database', () => {
  let t: TestApp;
  let second: Awaited<ReturnType<typeof buildApp>>;
  before(async () => {
    t = await startApp();
    // A second app on the same database stands in for another process: it shares no memory with
    // the first, so its sends cannot wake the first one's pollers in-process.
    second = await buildApp({ config: t.config, database: t.database, clock: t.clock, logger: false, workers: false });
    await second.app.ready();
  });
  after(async () => {
    await second.app.close();
    await t.close();
  });

  it('a poller finds a message sent through the other process within the re-check interval', async () => {
    const line = await activeLine(t);
    const waiting = t.app.inject({ url: '/v1/device/messages/outbound?wait=10', headers: line.device.headers });
    await pollsInProgress(t, 1);
    const started = Date.now();
    const sent = await second.app.inject({
      method: 'POST',
      url: `/v1/cells/${line.cell.id}/messages/send`,
      headers: line.org.headers,
      payload: { to: '+14155550160', body: 'cross-process' },
    });
    assert.equal(sent.statusCode, 202);
    const claimed = (await waiting).json().messages;
    assert.deepEqual(
      claimed.map((m: { id: string }) => m.id),
      [sent.json().id],
    );
    assert.ok(Date.now() - started < 2000, `found after ${Date.now() - started} ms`);
  });

  it('one Idempotency-Key sent through both at once makes one message; the loser replays the winner', async () => {
    const line = await activeLine(t);
    const request = {
      method: 'POST' as const,
      url: `/v1/cells/${line.cell.id}/messages/send`,
      headers: { ...line.org.headers, 'idempotency-key': 'both-processes' },
      payload: { to: '+14155550162', body: 'once' },
    };
    const answers = await Promise.all([t.app.inject(request), second.app.inject(request)]);
    assert.deepEqual(
      answers.map((a) => a.statusCode),
      [202, 202],
      answers.map((a) => a.body).join('\n'),
    );
    assert.equal(answers[0].json().id, answers[1].json().id);
    assert.deepEqual(answers.map((a) => a.headers['idempotent-replayed']).sort(), ['true', undefined].sort());
    const listed = (
      await t.app.inject({
        url: `/v1/cells/${line.cell.id}/messages?participant=%2B14155550162`,
        headers: line.org.headers,
      })
    ).json().messages;
    assert.equal(listed.length, 1);
  });

  it('pollers spread over both processes never share a message', async () => {
    const line = await activeLine(t, { send_rate_per_minute: 30 });
    const ids = new Set<string>();
    for (let i = 0; i < 30; i++) ids.add((await queued(t, line, { to: '+14155550161', body: `x${i}` })).id);
    const polls = Array.from({ length: 8 }, (_, i) =>
      (i % 2 === 0 ? t.app : second.app).inject({
        url: '/v1/device/messages/outbound?limit=5',
        headers: line.device.headers,
      }),
    );
    const claimed = (await Promise.all(polls)).flatMap((r) => r.json().messages.map((m: { id: string }) => m.id));
    assert.equal(claimed.length, 30);
    assert.deepEqual(new Set(claimed), ids);
  });
});
