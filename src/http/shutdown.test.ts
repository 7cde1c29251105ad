// Draining on close: requests that reach a closing app over kept-alive connections get an answer
// (their 200, or a 503 unavailable problem with Retry-After and Connection: close), never a reset.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { activeOrganization, startApp } from '../../test/harness.ts';
import { listeningPort, parseResponses, rawExchange } from '../../test/raw-http.ts';
import net from 'node:net';

interface Outcome {
  status?: number;
  headers?: http.IncomingHttpHeaders;
  body?: string;
  error?: string;
}

function get(port: number, path: string, agent: http.Agent, headers: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, path, agent, headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode, headers: response.headers, body }));
      response.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    });
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
  });
}

function assertUnavailable(outcome: Outcome) {
  assert.equal(outcome.status, 503);
  assert.equal(outcome.headers?.['content-type'], 'application/problem+json; charset=utf-8');
  assert.equal(outcome.headers?.connection, 'close');
  assert.ok(Number(outcome.headers?.['retry-after']) > 0, 'Retry-After');
  const body = JSON.parse(outcome.body ?? '');
  assert.equal(body.code, 'unavailable');
  assert.equal(body.status, 503);
  assert.equal(outcome.headers?.['x-request-id'], body.request_id);
}

describe('closing with kept-alive connections', () => {
  it('answers every request fired during close, 200 or 503 unavailable, and resets none', async () => {
    const t = await startApp();
    const org = await activeOrganization(t);
    const port = await listeningPort(t);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const paths: Array<[string, Record<string, string>]> = [
      ['/health', {}],
      ['/v1/auth/whoami', org.headers],
    ];
    // Warm the pool: eight kept-alive connections.
    await Promise.all(Array.from({ length: 8 }, (_, i) => get(port, paths[i % 2][0], agent, paths[i % 2][1])));
    const outcomes: Outcome[] = [];
    // Each client fires back to back until the service says it is going away (or the request fails).
    const clients = Array.from({ length: 8 }, async (_, i) => {
      for (;;) {
        const outcome = await get(port, paths[i % 2][0], agent, paths[i % 2][1]);
        outcomes.push(outcome);
        if (outcome.status !== 200) return;
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await Promise.all([t.close(), ...clients]);
    agent.destroy();

    assert.deepEqual(
      outcomes.filter((o) => o.error).map((o) => o.error),
      [],
    );
    const unavailable = outcomes.filter((o) => o.status !== 200);
    assert.equal(unavailable.length, 8, 'each client ends on a 503');
    unavailable.forEach(assertUnavailable);
  });

  it('answers a request sent on an idle kept-alive connection after close began with 503, then closes it', async () => {
    const t = await startApp();
    const port = await listeningPort(t);
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => {});
    const closed = new Promise((resolve) => socket.on('close', resolve));
    const request = 'GET /health HTTP/1.1\r\nHost: cellgate.test\r\n\r\n';
    socket.write(request);
    const deadline = performance.now() + 5000;
    while (parseResponses(received).length < 1 && performance.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(parseResponses(received)[0]?.status, 200);

    const closing = t.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.write(request);
    await closed;
    await closing;
    const responses = parseResponses(received);
    assert.equal(responses.length, 2, `a second answer, got ${JSON.stringify(received.slice(-400))}`);
    const [, second] = responses;
    assertUnavailable({ status: second.status, headers: second.headers, body: second.body });
  });

  it('answers a new connection during close with 503 too', async () => {
    const t = await startApp();
    const port = await listeningPort(t);
    // An idle kept-alive connection holds the drain open for a moment.
    const idle = net.connect(port, '127.0.0.1');
    idle.on('error', () => {});
    await new Promise((resolve) => idle.on('connect', resolve));
    const closing = t.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const exchange = await rawExchange(port, 'GET /health HTTP/1.1\r\nHost: cellgate.test\r\n\r\n');
    idle.destroy();
    await closing;
    const [response] = parseResponses(exchange.received);
    assert.ok(response, `an answer, got ${JSON.stringify(exchange.received)}`);
    assertUnavailable({ status: response.status, headers: response.headers, body: response.body });
  });
});
