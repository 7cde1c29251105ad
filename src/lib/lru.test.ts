// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LruMap } from './lru.ts';
import { clientNetwork } from './ip.ts';

describe('LruMap', () => {
  it('keeps at most its capacity, dropping the least recently read or written', () => {
    const map = new LruMap<string, number>(3);
    map.set('a', 1).set('b', 2).set('c', 3);
    assert.equal(map.get('a'), 1); // a is now the most recent
    map.set('d', 4);
    assert.equal(map.size, 3);
    assert.equal(map.has('b'), false, 'b was the least recently used');
    assert.deepEqual(
      ['a', 'c', 'd'].map((k) => map.get(k)),
      [1, 3, 4],
    );
    map.set('c', 30).set('e', 5);
    assert.equal(map.has('a'), false);
    assert.equal(map.get('c'), 30);
  });
});

describe('clientNetwork', () => {
  it('is an IPv4 address itself, an IPv4-mapped one its IPv4, any other IPv6 its /64', () => {
    assert.equal(clientNetwork('203.0.113.9'), '203.0.113.9');
    assert.equal(clientNetwork('::ffff:203.0.113.9'), '203.0.113.9');
    assert.equal(clientNetwork('::FFFF:CB00:7109'), '203.0.113.9');
    assert.equal(clientNetwork('2001:db8:77:1:abcd::9'), '2001:db8:77:1::/64');
    assert.equal(clientNetwork('2001:0DB8:0077:0001:ffff:ffff:ffff:ffff'), '2001:db8:77:1::/64');
    assert.equal(clientNetwork('::1'), '0:0:0:0::/64');
  });
});
