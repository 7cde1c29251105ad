// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseRetryAfter, RETRY_AFTER_CAP_MS, RETRY_DELAYS_MS, retryDelay } from './schedule.ts';

describe('retry schedule', () => {
  it('follows 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then gives up', () => {
    const middle = () => 0.5;
    assert.deepEqual(
      RETRY_DELAYS_MS.map((_, i) => retryDelay(i + 1, null, middle)),
      [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
    );
    assert.equal(retryDelay(8, null, middle), null);
  });

  it('jitters each delay by at most ±10%', () => {
    assert.equal(
      retryDelay(1, null, () => 0),
      4_500,
    );
    assert.equal(
      retryDelay(1, null, () => 0.999999),
      5_500,
    );
    for (let i = 0; i < 200; i++) {
      const delay = retryDelay(2, null) ?? 0;
      assert.ok(delay >= 270_000 && delay <= 330_000, String(delay));
    }
  });

  it('takes Retry-After when it is later than the schedule, capped at 24 h', () => {
    assert.equal(
      retryDelay(1, 60_000, () => 0.5),
      60_000,
    );
    assert.equal(
      retryDelay(2, 60_000, () => 0.5),
      300_000,
    );
    assert.equal(
      retryDelay(1, 10 * RETRY_AFTER_CAP_MS, () => 0.5),
      RETRY_AFTER_CAP_MS,
    );
  });

  it('reads Retry-After as seconds or an HTTP date and ignores anything else', () => {
    const now = new Date('2026-11-21T12:00:00.000Z');
    assert.equal(parseRetryAfter('120', now), 120_000);
    assert.equal(parseRetryAfter('Sat, 21 Nov 2026 12:10:00 GMT', now), 600_000);
    assert.equal(parseRetryAfter('Sat, 21 Nov 2026 11:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter('soon', now), null);
    assert.equal(parseRetryAfter('-5', now), null);
    assert.equal(parseRetryAfter(undefined, now), null);
  });
});
