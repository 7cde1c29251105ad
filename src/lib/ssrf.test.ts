// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cachedLookup, checkUrl, isForbiddenAddress, type Lookup } from './ssrf.ts';

const publicLookup: Lookup = async () => [{ address: '93.184.215.14', family: 4 }];

describe('isForbiddenAddress', () => {
  const forbidden = [
    '0.0.0.0',
    '10.0.0.5',
    '100.64.0.1',
    '127.0.0.1',
    '127.255.255.254',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '192.0.2.10',
    '198.18.0.1',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '::',
    '::1',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::a00:1',
    '2001:db8::1',
    '::127.0.0.1',
    // IPv6 forms that carry a private IPv4 address: mapped, translated, NAT64 (well-known and
    // local-use), 6to4 and Teredo (the client's bits inverted; or a private server).
    '::ffff:0:10.0.0.1',
    '::ffff:0:7f00:1',
    '0:0:0:0:ffff:0:a9fe:a9fe',
    '64:ff9b::127.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1::a00:1',
    '64:ff9b:1:0:0:0:808:808',
    '2002:7f00:1::',
    '2002:a9fe:a9fe::1',
    '2002:c0a8:101:1::1',
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    '2001:0:4136:e378:8000:63bf:f5ff:fffe',
    '2001:0:a00:1:8000:63bf:f7f7:f7f7',
    '2001:db8::1',
    'not-an-address',
  ];
  const allowed = [
    '93.184.215.14',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '::ffff:0:808:808',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  ];

  for (const address of forbidden) it(`forbids ${address}`, () => assert.equal(isForbiddenAddress(address), true));
  for (const address of allowed) it(`allows ${address}`, () => assert.equal(isForbiddenAddress(address), false));
});

describe('checkUrl', () => {
  const strict = { allowPrivate: false, lookup: publicLookup };

  it('accepts a public https URL and returns the address to connect to', async () => {
    const check = await checkUrl('https://hooks.example.com/in', strict);
    assert.ok(check.ok);
    assert.deepEqual(check.target, { address: '93.184.215.14', family: 4 });
  });

  it('rejects a name with any private address among its answers (DNS rebinding)', async () => {
    const mixed: Lookup = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ];
    const check = await checkUrl('https://hooks.example.com/in', { allowPrivate: false, lookup: mixed });
    assert.equal(check.ok, false);
    assert.equal(!check.ok && check.code, 'forbidden_address');
  });

  it('reads IPv4 literals in any notation the URL parser accepts', async () => {
    for (const url of ['https://2130706433/', 'https://0x7f.1/', 'https://[::ffff:7f00:1]/']) {
      const check = await checkUrl(url, strict);
      assert.equal(!check.ok && check.code, 'forbidden_address', url);
    }
  });

  it('allows http and private targets only with the development flag', async () => {
    assert.equal((await checkUrl('http://127.0.0.1:9/x', strict)).ok, false);
    const loose = await checkUrl('http://127.0.0.1:9/x', { allowPrivate: true, lookup: publicLookup });
    assert.ok(loose.ok);
    assert.equal(loose.target, null);
    assert.equal((await checkUrl('ftp://127.0.0.1/x', { allowPrivate: true, lookup: publicLookup })).ok, false);
  });
});

describe('cachedLookup', () => {
  it('reuses an answer until its time is up', async () => {
    let calls = 0;
    let now = 0;
    const lookup = cachedLookup(
      async () => [{ address: `192.0.2.${++calls}`, family: 4 }],
      1000,
      () => now,
    );
    assert.equal((await lookup('a.example.com'))[0].address, '192.0.2.1');
    now = 999;
    assert.equal((await lookup('a.example.com'))[0].address, '192.0.2.1');
    assert.equal((await lookup('b.example.com'))[0].address, '192.0.2.2');
    now = 1000;
    assert.equal((await lookup('a.example.com'))[0].address, '192.0.2.3');
  });

  it('when full, forgets the least recently used name, not all of them', async () => {
    const resolved: string[] = [];
    const lookup = cachedLookup(
      async (hostname) => {
        resolved.push(hostname);
        return [{ address: '192.0.2.1', family: 4 }];
      },
      1000,
      () => 0,
      2,
    );
    await lookup('a.example.com');
    await lookup('b.example.com');
    await lookup('a.example.com'); // a is now the most recently used
    await lookup('c.example.com'); // full: b goes
    await lookup('a.example.com');
    await lookup('c.example.com');
    assert.deepEqual(resolved, ['a.example.com', 'b.example.com', 'c.example.com']);
    await lookup('b.example.com');
    assert.deepEqual(resolved, ['a.example.com', 'b.example.com', 'c.example.com', 'b.example.com']);
  });
});
