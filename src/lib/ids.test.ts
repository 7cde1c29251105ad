// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeTime } from 'ulid';
import { ManualClock } from './clock.ts';
import { idFloor, isId, newId } from './ids.ts';

const timeOf = (id: string) => decodeTime(id.slice(id.indexOf('_') + 1).toUpperCase());

describe('newId', () => {
  it('carries the time of the clock it is minted from', () => {
    const clock = new ManualClock('2031-05-01T00:00:00.000Z');
    const id = newId('msg', clock);
    assert.ok(isId('msg', id));
    assert.equal(timeOf(id), Date.parse('2031-05-01T00:00:00.000Z'));
  });

  it('is monotonic within one clock, even within one millisecond', () => {
    const clock = new ManualClock();
    const ids = Array.from({ length: 1000 }, () => newId('evt', clock));
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(ids).size, ids.length);
  });

  it('is not pushed forward by ids of another clock (two apps in one process)', () => {
    const late = new ManualClock('2040-01-01T00:00:00.000Z');
    newId('msg', late);
    const early = new ManualClock('2026-01-01T00:00:00.000Z');
    assert.equal(timeOf(newId('msg', early)), Date.parse('2026-01-01T00:00:00.000Z'));
  });
});

describe('idFloor', () => {
  it('sorts below every id minted in its millisecond and above every id minted before it', () => {
    const clock = new ManualClock('2031-05-01T00:00:00.000Z');
    const before = newId('msg', clock, new Date(clock.now().getTime() - 1));
    const floor = idFloor('msg', clock.now().getTime());
    const at = Array.from({ length: 50 }, () => newId('msg', clock));
    assert.ok(before < floor);
    for (const id of at) assert.ok(floor < id, id);
  });

  it('stops at the epoch for a time before it', () => {
    assert.equal(idFloor('msg', -5), idFloor('msg', 0));
  });
});
