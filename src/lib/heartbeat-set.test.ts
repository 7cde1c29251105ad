// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HeartbeatSet } from './heartbeat-set.ts';

describe('HeartbeatSet', () => {
  it('beats while it has members, and stops with the last one', (t) => {
    // Mocked timers: the beats are counted by the ticks given, not by how busy the machine is.
    t.mock.timers.enable({ apis: ['setInterval'] });
    let beats = 0;
    const set = new HeartbeatSet<string>(5, () => (beats += 1));
    t.mock.timers.tick(20);
    assert.equal(beats, 0, 'no timer without members');
    set.add('a');
    set.add('b');
    t.mock.timers.tick(15);
    assert.equal(beats, 3, 'one timer for both members');
    assert.deepEqual([...set], ['a', 'b']);
    set.delete('a');
    assert.equal(set.size, 1);
    t.mock.timers.tick(5);
    assert.equal(beats, 4, 'still beating for the one left');
    set.delete('b');
    t.mock.timers.tick(30);
    assert.equal(beats, 4, 'the last one gone stops the timer');
  });
});
