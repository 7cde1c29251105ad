// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { HeartbeatSet } from './heartbeat-set.ts';

describe('HeartbeatSet', () => {
  it('beats while it has members, and stops with the last one', async () => {
    let beats = 0;
    const set = new HeartbeatSet<string>(5, () => (beats += 1));
    await sleep(20);
    assert.equal(beats, 0, 'no timer without members');
    set.add('a');
    set.add('b');
    await sleep(30);
    assert.ok(beats > 0);
    assert.deepEqual([...set], ['a', 'b']);
    set.delete('a');
    assert.equal(set.size, 1);
    set.delete('b');
    const stopped = beats;
    await sleep(30);
    assert.equal(beats, stopped, 'the last one gone stops the timer');
  });
});
