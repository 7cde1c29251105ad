// Client ID Metadata Document fetches are bounded (contract §8, issue 22 item 9): a total deadline
// however slowly the bytes come, a 64 KB cap, 16 KB of metadata, a bound on fetches at once (over
// it the authorization fails fast), and failures remembered for a minute. The real fetcher runs
// against a local HTTP server; only the address is redirected there (the SSRF guard sees a public
// one) and the deadline is shortened so the test does not wait 5 s.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startApp, type TestApp } from '../../../test/harness.ts';
import { documentFetcher } from './metadata-document.ts';
import { REDIRECT, authorize, pkce } from '../../../test/support/oauth-client.ts';

// Long enough that held fetches outlive a loaded machine's slowest step, short enough for the slow tests.
const DEADLINE_MS = 1000;
const ORIGIN = 'https://client.example';

const documentOf = (path: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    client_id: `${ORIGIN}${path}`,
    client_name: 'Slow client',
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
    ...extra,
  });

/** The document server: what each path does, how often it was asked, and the held answers. */
class DocumentServer {
  readonly hits = new Map<string, number>();
  readonly held: (() => void)[] = [];
  readonly closedEarly: string[] = [];
  private server!: Server;
  base = '';

  async start() {
    this.server = createServer((request, response) => this.handle(request, response));
    await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', done));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private handle(request: IncomingMessage, response: ServerResponse) {
    const path = request.url ?? '/';
    this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
    response.on('close', () => {
      if (!response.writableFinished) this.closedEarly.push(path);
    });
    if (path.startsWith('/drip')) {
      // A byte every 100 ms: never idle long, never done.
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{');
      const timer = setInterval(() => response.write(' '), 100);
      response.on('close', () => clearInterval(timer));
    } else if (path.startsWith('/huge')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(documentOf(path, { padding: 'x'.repeat(70 * 1024) }));
    } else if (path.startsWith('/large')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(documentOf(path, { padding: 'x'.repeat(20 * 1024) }));
    } else if (path.startsWith('/broken')) {
      response.writeHead(500).end('no');
    } else if (path.startsWith('/hold')) {
      this.held.push(() => response.writeHead(200, { 'content-type': 'application/json' }).end(documentOf(path)));
    } else {
      response.writeHead(200, { 'content-type': 'application/json' }).end(documentOf(path));
    }
  }

  releaseAll() {
    for (const release of this.held.splice(0)) release();
  }

  async stop() {
    this.releaseAll();
    this.server.closeAllConnections();
    await new Promise((done) => this.server.close(done));
  }
}

describe('fetching Client ID Metadata Documents', () => {
  let t: TestApp;
  const server = new DocumentServer();
  before(async () => {
    await server.start();
    const fetcher = documentFetcher({ deadlineMs: DEADLINE_MS });
    t = await startApp({
      deps: {
        oauth: {
          lookup: async () => [{ address: '93.184.216.34', family: 4 }],
          fetchDocument: (url) => fetcher(new URL(url.pathname, server.base), null),
          maxConcurrentFetches: 2,
        },
      },
    });
  });
  after(async () => {
    await t.close();
    await server.stop();
  });

  const authorizeWith = (path: string) =>
    authorize(t, {
      response_type: 'code',
      client_id: `${ORIGIN}${path}`,
      redirect_uri: REDIRECT,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });

  it('gives up on a server dripping bytes at the total deadline, though it is never idle', async () => {
    const started = performance.now();
    const page = await authorizeWith('/drip');
    const elapsed = performance.now() - started;
    assert.equal(page.statusCode, 400, page.body);
    assert.match(page.body, new RegExp(`no complete answer within ${DEADLINE_MS} ms`));
    assert.ok(elapsed < DEADLINE_MS + 1500, `answered after ${Math.round(elapsed)} ms`);
    for (let waited = 0; !server.closedEarly.includes('/drip') && waited < 100; waited += 1)
      await new Promise((done) => setTimeout(done, 10));
    assert.ok(server.closedEarly.includes('/drip'), 'the connection was closed');
  });

  it('aborts a document past 64 KB', async () => {
    const page = await authorizeWith('/huge');
    assert.equal(page.statusCode, 400, page.body);
    assert.match(page.body, /exceeds 65536 bytes/);
  });

  it('refuses a document of more than 16 KB of metadata', async () => {
    const page = await authorizeWith('/large');
    assert.equal(page.statusCode, 400, page.body);
    assert.match(page.body, /exceeds 16 KB/);
  });

  it('remembers a failed fetch for a minute instead of fetching again', async () => {
    for (let i = 0; i < 3; i += 1) {
      const page = await authorizeWith('/broken');
      assert.equal(page.statusCode, 400, page.body);
      assert.match(page.body, /answered HTTP 500/);
    }
    assert.equal(server.hits.get('/broken'), 1);
    t.clock.advance(60 * 1000);
    assert.equal((await authorizeWith('/broken')).statusCode, 400);
    assert.equal(server.hits.get('/broken'), 2, 'fetched again after a minute');
  });

  it('fails fast with a 503 page when too many fetches are under way, and fetches one URL once at a time', async () => {
    const first = authorizeWith('/hold-1');
    const second = authorizeWith('/hold-2');
    const again = authorizeWith('/hold-1');
    while (server.held.length < 2) await new Promise((done) => setImmediate(done));
    const started = performance.now();
    const busy = await authorizeWith('/hold-3');
    assert.equal(busy.statusCode, 503, busy.body);
    assert.equal(busy.headers['retry-after'], '1');
    assert.equal(busy.headers.location, undefined);
    assert.match(busy.body, /Too many client metadata documents/);
    assert.ok(performance.now() - started < DEADLINE_MS, 'answered without waiting for a fetch');
    assert.equal(server.hits.get('/hold-3'), undefined);

    server.releaseAll();
    for (const response of await Promise.all([first, second, again]))
      assert.equal(response.statusCode, 303, response.body);
    assert.equal(server.hits.get('/hold-1'), 1, 'the second authorization waited for the first fetch');
    // The refusal was not remembered as a failure: the same client is fetched now that a slot is free.
    const later = authorizeWith('/hold-3');
    while (server.held.length < 1) await new Promise((done) => setImmediate(done));
    server.releaseAll();
    assert.equal((await later).statusCode, 303);
  });

  it('answers the token endpoint 503 temporarily_unavailable for a document client while fetches are full', async () => {
    const first = authorizeWith('/hold-4');
    const second = authorizeWith('/hold-5');
    while (server.held.length < 2) await new Promise((done) => setImmediate(done));
    const response = await t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: 'cg_rt_x',
        client_id: `${ORIGIN}/hold-6`,
      }).toString(),
    });
    assert.equal(response.statusCode, 503, response.body);
    assert.equal(response.json().error, 'temporarily_unavailable');
    assert.equal(response.headers['retry-after'], '1');
    server.releaseAll();
    await Promise.all([first, second]);
  });
});
