// Request and headers timeouts (CELLGATE_REQUEST_TIMEOUT_MS, CELLGATE_HEADERS_TIMEOUT_MS), shrunk
// for the test: a slow sender is cut with a 408 problem+json; long-polls and WebSockets are not.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from '../../test/harness.ts';
import { listeningPort, parseResponses, rawExchange } from '../../test/raw-http.ts';
import { StreamClient, streamUrl } from '../../test/support/stream-client.ts';
import { activeLine } from '../../test/support/messages.ts';

// Long enough that a loaded machine (tests run several files per core) parses an ordinary
// request's head within them: at 400 ms a long-poll's GET was once cut as a slow sender.
const REQUEST_TIMEOUT_MS = 1000;
const HEADERS_TIMEOUT_MS = 700;
// Node checks the deadlines every min(1 s, headers timeout); allow that plus scheduling slack.
const CUT_WITHIN_MS = REQUEST_TIMEOUT_MS + HEADERS_TIMEOUT_MS + 1500;

describe('request timeouts', () => {
  const t = useApp({
    env: {
      CELLGATE_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      CELLGATE_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    },
  });
  let port: number;
  before(async () => {
    port = await listeningPort(t);
  });

  function assertTimedOut(received: string) {
    const responses = parseResponses(received);
    const timeout = responses.at(-1);
    assert.ok(timeout, `a response before the close, got ${JSON.stringify(received)}`);
    assert.equal(timeout.status, 408, received);
    assert.equal(timeout.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(timeout.headers.connection, 'close');
    const body = JSON.parse(timeout.body);
    assert.equal(body.code, 'request_timeout');
    assert.equal(body.status, 408);
    assert.equal(body.type, 'http://cellgate.test/docs/errors/request_timeout');
    assert.match(body.request_id, /^req_[0-9a-z]{26}$/);
    assert.equal(timeout.headers['x-request-id'], body.request_id);
    return responses;
  }

  it('cuts a body trickled one byte at a time with a 408 problem+json and closes the connection', async () => {
    const head =
      'POST /v1/agent/sign-up HTTP/1.1\r\nHost: cellgate.test\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{';
    // 999 more bytes at one per 50 ms would hold the socket for 50 s.
    const exchange = await rawExchange(port, head, { trickle: ' '.repeat(999), everyMs: 50 });
    assert.ok(
      exchange.closed,
      `the server closed the connection within the test's 5 s (got ${JSON.stringify(exchange.received)})`,
    );
    assert.ok(exchange.elapsedMs < CUT_WITHIN_MS, `cut after ${Math.round(exchange.elapsedMs)} ms`);
    assert.equal(assertTimedOut(exchange.received).length, 1);
  });

  it('cuts a trickled body on an authenticated route without a credential: 401 first, then the cut', async () => {
    const head =
      'POST /v1/cells HTTP/1.1\r\nHost: cellgate.test\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{';
    const exchange = await rawExchange(port, head, { trickle: ' '.repeat(999), everyMs: 50 });
    assert.ok(
      exchange.closed,
      `the server closed the connection within the test's 5 s (got ${JSON.stringify(exchange.received)})`,
    );
    assert.ok(exchange.elapsedMs < CUT_WITHIN_MS, `cut after ${Math.round(exchange.elapsedMs)} ms`);
    const [first] = parseResponses(exchange.received);
    assert.equal(first.status, 401);
    assert.equal(JSON.parse(first.body).code, 'unauthenticated');
  });

  it('cuts headers trickled one byte at a time with a 408 problem+json', async () => {
    const exchange = await rawExchange(port, 'GET /health HTTP/1.1\r\nHost: cellgate.test\r\nX-Slow: ', {
      trickle: 'a'.repeat(999),
      everyMs: 50,
    });
    assert.ok(
      exchange.closed,
      `the server closed the connection within the test's 5 s (got ${JSON.stringify(exchange.received)})`,
    );
    assert.ok(exchange.elapsedMs < HEADERS_TIMEOUT_MS + 1500, `cut after ${Math.round(exchange.elapsedMs)} ms`);
    assert.equal(assertTimedOut(exchange.received).length, 1);
  });

  it('does not cut a device long-poll that waits longer than the request timeout', async () => {
    const line = await activeLine(t);
    const started = performance.now();
    const response = await fetch(`http://127.0.0.1:${port}/v1/device/messages/outbound?wait=2`, {
      headers: line.device.headers,
    });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { messages: [] });
    assert.ok(performance.now() - started >= 1900, 'the poll waited its two seconds');
  });

  it('does not cut an event stream WebSocket open longer than the request timeout', async () => {
    const line = await activeLine(t);
    const client = await StreamClient.ready(await streamUrl(t), { headers: line.org.headers });
    let closed = false;
    void client.closed.then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, REQUEST_TIMEOUT_MS * 3));
    assert.equal(closed, false);
    client.close();
  });
});
