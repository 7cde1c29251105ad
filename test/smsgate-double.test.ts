// @database-independent
// The SMSGate app double's own wire habits, checked against values worked out from the app's
// libraries (Gson, OkHttp's SSE reader, javax.crypto): if these drift, the end-to-end tests would
// check Cellgate against something the app does not send.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { EventsConnection, EventStreamParser } from './support/smsgate-sse.ts';
import { gsonDate, gsonJson, inboxMessageId, redact, webhookSignature } from './support/smsgate-wire.ts';

describe('the SMSGate app double', () => {
  test("writes JSON as the app's Gson: nulls left out, HTML characters escaped", () => {
    assert.equal(
      gsonJson({ message: "a<b> & c='d'", sender: null, list: [1] }),
      '{"message":"a\\u003cb\\u003e \\u0026 c\\u003d\\u0027d\\u0027","list":[1]}',
    );
    assert.deepEqual(JSON.parse(gsonJson({ text: "x=1 & y<2'" })), { text: "x=1 & y<2'" });
  });

  test("writes dates in the phone's time zone with milliseconds, Z at UTC", () => {
    const at = new Date('2026-11-21T12:00:00.000Z');
    assert.equal(gsonDate(at, 7 * 60), '2026-11-21T19:00:00.000+07:00');
    assert.equal(gsonDate(at, -150), '2026-11-21T09:30:00.000-02:30');
    assert.equal(gsonDate(at, 0), '2026-11-21T12:00:00.000Z');
  });

  test('signs body + timestamp with HMAC-SHA256 as lowercase hex (RFC 4231 case 2 as key and text)', () => {
    // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?", split into body and timestamp.
    assert.equal(
      webhookSignature('Jefe', 'what do ya want ', 'for nothing?'),
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  test('redacts SIM fields as GatewayService does and hashes inbox messages as Java does', () => {
    assert.equal(redact('+14155550123'), '********0123');
    assert.equal(redact('MTS'), '****');
    assert.equal(redact(null), null);
    // "a".hashCode() = 97; Date(0).hashCode() = 0: ((97*31 + 0)*31 + 1)*31 + "hi".hashCode() (3329).
    assert.equal(inboxMessageId('a', new Date(0), 1, 'hi'), (((97 * 31 + 0) * 31 + 1) * 31 + 3329).toString(16));
  });

  test("parses a stream as OkHttp's reader: CRLF split across chunks, comments, data-less events", () => {
    const seen: [string | null, string | null, string][] = [];
    const parser = new EventStreamParser((id, type, data) => seen.push([id, type, data]));
    parser.push(':keepalive\n\nevent: MessageEnqueued\ndata: null\r');
    parser.push('\n\r\nevent: SettingsUpdated\n\n'); // no data: not dispatched
    parser.push('id: 7\nevent:WebhooksUpdated\ndata:a\ndata\nfoo: bar\n\n');
    parser.push('data: {}\n\n');
    assert.deepEqual(seen, [
      [null, 'MessageEnqueued', 'null'],
      ['7', 'WebhooksUpdated', 'a\n'],
      ['7', null, '{}'],
    ]);
  });

  test('routes events as the app does and reconnects after the server closes the stream', async () => {
    let requests = 0;
    const server = createServer((request, response) => {
      requests += 1;
      assert.equal(request.headers.authorization, 'Bearer device-token');
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      if (requests === 1) response.end('event: MessageEnqueued\ndata: null\n\nevent: Ping\ndata: x\n\n');
      else response.write('data: {}\n\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const events = new EventsConnection({
      url: `http://127.0.0.1:${port}/mobile/v1/events`,
      token: 'device-token',
      reconnectDelayMs: () => 10,
    });
    try {
      await events.start();
      await events.until(() => events.connects === 2 && events.events.length === 2, 'the reconnect');
      assert.deepEqual(
        events.events.map((e) => e.type),
        ['MessageEnqueued', 'MessageEnqueued'],
      );
      assert.deepEqual(events.unknown, [{ type: 'Ping', data: 'x' }]);
    } finally {
      events.close();
      server.closeAllConnections();
      server.close();
    }
  });

  test('counts a stream that is not text/event-stream as a failed connect', async () => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const events = new EventsConnection({
      url: `http://127.0.0.1:${port}/`,
      token: 't',
      reconnectDelayMs: () => 60_000,
    });
    try {
      await events.start();
      assert.equal(events.connects, 0);
      assert.deepEqual(events.failures, ['Invalid content-type: application/json']);
    } finally {
      events.close();
      server.close();
    }
  });
});
