// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { lazyChildLogger } from './lazy-logger.ts';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: pino({ level }, sink), lines };
}

describe('lazy per-request logger', () => {
  it('writes with the request binding when the level is enabled', async () => {
    const { logger, lines } = capture('info');
    lazyChildLogger(logger, { request_id: 'req_1' }, {}).info({ status: 200 }, 'request');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(lines.length, 1);
    assert.equal(lines[0].request_id, 'req_1');
    assert.equal(lines[0].status, 200);
  });

  it('creates no child and writes nothing below the level', async () => {
    const { logger, lines } = capture('warn');
    let children = 0;
    const child = logger.child.bind(logger);
    logger.child = ((...args: Parameters<typeof child>) => {
      children += 1;
      return child(...args);
    }) as typeof logger.child;
    const log = lazyChildLogger(logger, { request_id: 'req_2' }, {});
    log.info('not written');
    log.debug('not written');
    assert.equal(children, 0);
    log.error({ code: 'x' }, 'written');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(children, 1);
    assert.deepEqual(
      lines.map((l) => [l.msg, l.request_id]),
      [['written', 'req_2']],
    );
  });
});
