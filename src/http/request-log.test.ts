// The request log (contract §9): one record per request at info level, its URL redacted; a 5xx
// also logs its stack with the request id; on a terminal a request is one line.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import pretty from 'pino-pretty';
import { startApp, useApp } from '../../test/harness.ts';
import { redactUrl } from './log-redaction.ts';
import { loggerOptions, PRETTY_OPTIONS } from './server.ts';

function memory() {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { sink, chunks };
}

describe('the request log in JSON mode', () => {
  const { sink, chunks } = memory();
  const records = () => chunks.map((chunk) => JSON.parse(chunk) as Record<string, unknown>);
  const t = useApp({
    deps: { logger: pino(loggerOptions({ logLevel: 'info' }), sink) },
    routes: (app) => {
      app.get('/v1/test/crash', { config: { auth: 'public' }, schema: { hide: true } }, async () => {
        throw new Error('probe crash');
      });
    },
  });

  it('writes exactly one record per request, with method, redacted URL, status, time and request id', async () => {
    chunks.length = 0;
    const secret = 'cg_live_AbCdEfGhIjKlMnOpQrStUvWxYz012345';
    const response = await t.app.inject({ url: `/health?token=${secret}&verbose=1` });
    assert.equal(chunks.length, 1, chunks.join(''));
    const [record] = records();
    assert.equal(record.level, 30);
    assert.equal(record.msg, 'request');
    assert.equal(record.method, 'GET');
    assert.equal(record.url, '/health?token=[REDACTED]&verbose=1');
    assert.equal(record.status, response.statusCode);
    assert.equal(typeof record.ms, 'number');
    assert.equal(record.request_id, response.headers['x-request-id']);
    assert.ok(!chunks[0].includes(secret), chunks[0]);
  });

  it('logs a 5xx with its stack and request id, besides its request line', async () => {
    chunks.length = 0;
    const response = await t.app.inject({ url: '/v1/test/crash' });
    assert.equal(response.statusCode, 500, response.body);
    const requestId = response.headers['x-request-id'];
    const [failure, line] = records();
    assert.equal(failure.level, 50);
    assert.equal(failure.request_id, requestId);
    assert.match(String((failure.err as { stack?: string }).stack), /Error: probe crash\n\s+at /);
    assert.deepEqual([line.msg, line.status, line.request_id], ['request', 500, requestId]);
    assert.equal(chunks.length, 2);
  });
});

describe('the request log on a terminal (pino-pretty)', () => {
  it('prints a request as one line', async () => {
    const { sink, chunks } = memory();
    const t = await startApp({
      deps: {
        logger: pino(
          loggerOptions({ logLevel: 'info' }),
          pretty({ ...PRETTY_OPTIONS, colorize: false, destination: sink }),
        ),
      },
    });
    try {
      const response = await t.app.inject({ url: '/health' });
      await new Promise((resolve) => setImmediate(resolve));
      const text = chunks.join('');
      assert.equal(text.split('\n').filter(Boolean).length, 1, text);
      assert.match(text, /INFO.*request.*"method":"GET".*"url":"\/health".*"status":200/);
      assert.ok(text.includes(String(response.headers['x-request-id'])), text);
    } finally {
      await t.close();
    }
  });
});

describe('redactUrl', () => {
  it('replaces the values of secret parameters, whatever their case or encoding', () => {
    assert.equal(
      redactUrl('/v1/x?API_KEY=a&Access%5Ftoken=b&client_secret=c&code=123456&state=s&limit=5'),
      '/v1/x?API_KEY=[REDACTED]&Access%5Ftoken=[REDACTED]&client_secret=[REDACTED]&code=[REDACTED]&state=[REDACTED]&limit=5',
    );
  });

  it('replaces Cellgate secrets wherever they are, raw or percent-encoded', () => {
    assert.equal(
      redactUrl('/v1/cells/cg_live_Abc123?q=whsec_ab%2Bcd%3D&note=cg%5Fat%5FXyz&request=oar_1'),
      '/v1/cells/[REDACTED]?q=[REDACTED]&note=[REDACTED]&request=oar_1',
    );
    assert.equal(redactUrl('/v1/x?cg_adm_Secret'), '/v1/x?[REDACTED]');
  });

  it('keeps URLs without secrets as they are', () => {
    for (const url of [
      '/health',
      '/v1/cells?limit=10&cursor=abc',
      '/console/consent?request=oar_01abc',
      '/v1/messages?idempotency_key=k1',
    ]) {
      assert.equal(redactUrl(url), url);
    }
  });
});
