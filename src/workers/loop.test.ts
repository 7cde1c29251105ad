// A background loop outlives failing ticks: a rejected tick, one that throws before returning a
// promise, and a database outage (a warning, not an error) are logged, and the next interval runs.
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyBaseLogger } from 'fastify';
import { loop } from './loop.ts';

function recordingLog() {
  const lines: { level: string; message: string }[] = [];
  const at = (level: string) => (_details: object, message: string) => void lines.push({ level, message });
  return { lines, log: { warn: at('warn'), error: at('error') } as unknown as FastifyBaseLogger };
}

/** Lets the tick's promise chain settle (no timers involved). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('loop', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setInterval'] }));
  afterEach(() => mock.timers.reset());

  it('logs a tick that throws synchronously or rejects, and keeps ticking', async () => {
    const { lines, log } = recordingLog();
    let calls = 0;
    const worker = loop(
      'flaky',
      100,
      () => {
        calls += 1;
        if (calls === 1) throw new TypeError('thrown before any promise');
        if (calls === 2) return Promise.reject(new Error('rejected'));
        return Promise.resolve();
      },
      log,
    );
    worker.start();
    for (let i = 0; i < 3; i += 1) {
      mock.timers.tick(100);
      await settle();
    }
    await worker.stop();
    assert.equal(calls, 3);
    assert.deepEqual(lines, [
      { level: 'error', message: 'worker tick failed' },
      { level: 'error', message: 'worker tick failed' },
    ]);
  });

  it('logs a lost database connection as a warning and retries on the next interval', async () => {
    const { lines, log } = recordingLog();
    let calls = 0;
    const worker = loop(
      'leases',
      100,
      async () => {
        calls += 1;
        if (calls === 1)
          throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      },
      log,
    );
    worker.start();
    mock.timers.tick(100);
    await settle();
    mock.timers.tick(100);
    await settle();
    await worker.stop();
    assert.equal(calls, 2);
    assert.deepEqual(lines, [{ level: 'warn', message: 'worker tick failed: database unavailable; retrying' }]);
  });
});
