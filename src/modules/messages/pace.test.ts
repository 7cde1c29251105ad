// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
// The pace of a pod's cells together: limits and remainders add up; it grows with the first that grows.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { combinedPace } from './pace.ts';

describe('combinedPace', () => {
  it('is null when no cell has a phone', () => {
    assert.equal(combinedPace([]), null);
    assert.equal(combinedPace([null, null]), null);
  });

  it('adds the limits and the remainders, leaving out cells without a phone', () => {
    assert.deepEqual(combinedPace([{ limit: 3, remaining: 1, reset: 0 }, null, { limit: 5, remaining: 5, reset: 0 }]), {
      limit: 8,
      remaining: 6,
      reset: 0,
    });
  });

  it('grows when the first cell that will grow does (a cell at its full pace never grows)', () => {
    assert.deepEqual(
      combinedPace([
        { limit: 3, remaining: 0, reset: 40 },
        { limit: 5, remaining: 5, reset: 0 },
        { limit: 2, remaining: 1, reset: 15 },
      ]),
      { limit: 10, remaining: 6, reset: 15 },
    );
  });
});
