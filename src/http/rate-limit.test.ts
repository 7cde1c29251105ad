import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { buildApp } from '../app.ts';
import {
  activeOrganization,
  admin,
  bearer,
  verifiedOrganization,
  expectProblem,
  signUp,
  startApp,
  useApp,
} from '../../test/harness.ts';
import { MemoryRateLimiter } from './rate-limit.ts';
import { RedisRateLimiter } from './redis-rate-limit.ts';

describe('per-credential token bucket', () => {
  const t = useApp({ env: { CELLGATE_RATE_LIMIT: '2', CELLGATE_RATE_LIMIT_BURST: '3' } });

  it('allows the burst, then 429 rate_limited with Retry-After and RateLimit headers; refills with time', async () => {
    const org = await activeOrganization(t);
    t.clock.advance(10_000); // sign-up and verify spent tokens of other buckets only; start full
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const ok = await t.app.inject({ url: '/v1/auth/whoami', headers: org.headers });
      assert.equal(ok.statusCode, 200);
      assert.equal(ok.headers['ratelimit-limit'], '3');
      remaining.push(String(ok.headers['ratelimit-remaining']));
      assert.ok(Number(ok.headers['ratelimit-reset']) >= 0);
    }
    assert.deepEqual(remaining, ['2', '1', '0']);

    const blocked = await t.app.inject({ url: '/v1/auth/whoami', headers: org.headers });
    expectProblem(blocked, 429, 'rate_limited');
    assert.equal(blocked.headers['retry-after'], '1');
    assert.equal(blocked.headers['ratelimit-limit'], '3');
    assert.equal(blocked.headers['ratelimit-remaining'], '0');
    assert.equal(blocked.headers['ratelimit-reset'], '2');

    t.clock.advance(500);
    const refilled = await t.app.inject({ url: '/v1/auth/whoami', headers: org.headers });
    assert.equal(refilled.statusCode, 200, 'one token after 0.5 s at 2/s');
    expectProblem(await t.app.inject({ url: '/v1/auth/whoami', headers: org.headers }), 429, 'rate_limited');

    t.clock.advance(1500);
    for (let i = 0; i < 3; i++)
      assert.equal((await t.app.inject({ url: '/v1/auth/whoami', headers: org.headers })).statusCode, 200);
  });

  it('each credential has its own bucket', async () => {
    const a = await verifiedOrganization(t);
    const b = await verifiedOrganization(t);
    t.clock.advance(10_000);
    for (let i = 0; i < 3; i++) await t.app.inject({ url: '/v1/auth/whoami', headers: a.headers });
    expectProblem(await t.app.inject({ url: '/v1/auth/whoami', headers: a.headers }), 429, 'rate_limited');
    assert.equal((await t.app.inject({ url: '/v1/auth/whoami', headers: b.headers })).statusCode, 200);
  });

  it('the keys of one organization share its bucket: minting keys does not raise the budget; other organizations are unaffected', async () => {
    const org = await verifiedOrganization(t);
    const keys = [org.apiKey];
    for (let i = 0; i < 3; i++) {
      t.clock.advance(10_000);
      const created = await t.app.inject({ method: 'POST', url: '/v1/auth/keys', headers: org.headers, payload: {} });
      assert.equal(created.statusCode, 201, created.body);
      keys.push(created.json().api_key);
    }
    const other = await verifiedOrganization(t);
    t.clock.advance(10_000);
    // One request per key: each key's own bucket is nearly full, the organization's runs dry.
    const remaining: string[] = [];
    for (const key of keys.slice(0, 3)) {
      const ok = await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(key) });
      assert.equal(ok.statusCode, 200);
      remaining.push(String(ok.headers['ratelimit-remaining']));
    }
    assert.deepEqual(remaining, ['2', '1', '0'], "the headers describe the tighter bucket: the organization's");
    const blocked = await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(keys[3]) });
    const problem = expectProblem(blocked, 429, 'rate_limited');
    assert.match(problem.detail, /this organization/);
    assert.equal(blocked.headers['retry-after'], '1');
    assert.equal(blocked.headers['ratelimit-limit'], '3');
    assert.equal(blocked.headers['ratelimit-remaining'], '0');
    assert.equal(blocked.headers['ratelimit-reset'], '2');
    assert.equal((await t.app.inject({ url: '/v1/auth/whoami', headers: other.headers })).statusCode, 200);
    t.clock.advance(500);
    assert.equal(
      (await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(keys[3]) })).statusCode,
      200,
      'the organization refills as a key does',
    );
  });

  it('the admin token is limited too', async () => {
    t.clock.advance(10_000);
    for (let i = 0; i < 3; i++)
      assert.equal((await t.app.inject({ url: '/v1/admin/outbox', headers: admin })).statusCode, 200);
    expectProblem(await t.app.inject({ url: '/v1/admin/outbox', headers: admin }), 429, 'rate_limited');
  });

  it('counts refused and unrouted requests too, with the headers on their answers', async () => {
    t.clock.advance(10_000);
    const address = '198.51.100.77';
    const refused = await t.app.inject({ url: '/v1/cells', remoteAddress: address, headers: bearer('cg_live_nope') });
    expectProblem(refused, 401, 'unauthenticated');
    assert.equal(refused.headers['ratelimit-limit'], '3');
    assert.equal(refused.headers['ratelimit-remaining'], '2');
    const unrouted = await t.app.inject({ url: '/v1/nowhere', remoteAddress: address });
    expectProblem(unrouted, 404, 'not_found');
    assert.equal(unrouted.headers['ratelimit-remaining'], '1', 'the same address, the same bucket');

    const unverified = await signUp(t);
    const forbidden = await t.app.inject({ url: '/v1/cells', headers: bearer(unverified.apiKey) });
    expectProblem(forbidden, 403, 'organization_unverified');
    assert.equal(forbidden.headers['ratelimit-limit'], '3');
    const noAdmin = await t.app.inject({ url: '/v1/admin/outbox', headers: bearer(unverified.apiKey) });
    expectProblem(noAdmin, 403, 'forbidden');
    assert.ok(noAdmin.headers['ratelimit-remaining'] !== undefined);
  });

  it('/health is never limited', async () => {
    for (let i = 0; i < 10; i++) assert.equal((await t.app.inject({ url: '/health' })).statusCode, 200);
  });
});

describe('CELLGATE_RATE_LIMIT=0', () => {
  const t = useApp({ env: { CELLGATE_RATE_LIMIT: '0' } });

  it('turns per-credential limiting off', async () => {
    const org = await activeOrganization(t);
    for (let i = 0; i < 30; i++)
      assert.equal((await t.app.inject({ url: '/v1/auth/whoami', headers: org.headers })).statusCode, 200);
  });
});

describe('MemoryRateLimiter', () => {
  it('computes remaining, reset and retry-after from the bucket', async () => {
    const limiter = new MemoryRateLimiter();
    const bucket = { rate: 1, burst: 2 };
    assert.deepEqual(await limiter.take('k', bucket, 0), {
      allowed: true,
      remaining: 1,
      resetSeconds: 1,
      retryAfterSeconds: 0,
    });
    assert.deepEqual(await limiter.take('k', bucket, 0), {
      allowed: true,
      remaining: 0,
      resetSeconds: 2,
      retryAfterSeconds: 0,
    });
    assert.deepEqual(await limiter.take('k', bucket, 0), {
      allowed: false,
      remaining: 0,
      resetSeconds: 2,
      retryAfterSeconds: 1,
    });
    assert.equal((await limiter.take('k', bucket, 1000)).allowed, true);
  });

  it('past its capacity drops the least recently used buckets only: a spent budget in use survives 100,500 new keys', async () => {
    const limiter = new MemoryRateLimiter();
    const bucket = { rate: 10 / 3600, burst: 10 };
    for (let i = 0; i < 10; i++) assert.equal((await limiter.take('signup:198.51.100.7', bucket, 0)).allowed, true);
    for (let i = 0; i < 100_500; i++) {
      await limiter.take(`signup:10.${i >> 16}.${(i >> 8) & 0xff}.${i & 0xff}`, bucket, 1);
      // The spent address keeps trying while the flood runs: each try keeps its bucket in use.
      if (i % 50_000 === 0)
        assert.equal((await limiter.take('signup:198.51.100.7', bucket, 1)).allowed, false, `after ${i} keys`);
    }
    assert.equal((await limiter.take('signup:198.51.100.7', bucket, 2)).allowed, false, 'still spent');
    assert.equal((await limiter.take('signup:10.0.0.0', bucket, 2)).remaining, 9, 'the oldest bucket went');
  });
});

async function redisReachable(url: string): Promise<boolean> {
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

const REDIS_URL = process.env.CELLGATE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('RedisRateLimiter', async () => {
  const reachable = await redisReachable(REDIS_URL);

  it(
    'shares one budget between two app instances',
    { skip: reachable ? false : `Redis unreachable at ${REDIS_URL}` },
    async () => {
      // The organization is made on an app without limits: the admin's budget (the bootstrap token's,
      // one key) is shared through Redis with every test process running now, one with its clock in 2099.
      const setup = await startApp();
      const limited = { ...setup.config, rateLimit: 2, rateLimitBurst: 3, redisUrl: REDIS_URL };
      const [first, second] = await Promise.all(
        [0, 1].map(async () => {
          const { app } = await buildApp({
            config: limited,
            database: setup.database,
            clock: setup.clock,
            mailer: setup.mail,
            logger: false,
          });
          await app.ready();
          return app;
        }),
      );
      try {
        const org = await activeOrganization(setup);
        setup.clock.advance(10_000);
        assert.equal((await first.inject({ url: '/v1/auth/whoami', headers: org.headers })).statusCode, 200);
        assert.equal((await second.inject({ url: '/v1/auth/whoami', headers: org.headers })).statusCode, 200);
        const third = await first.inject({ url: '/v1/auth/whoami', headers: org.headers });
        assert.equal(third.statusCode, 200);
        assert.equal(third.headers['ratelimit-remaining'], '0');
        const blocked = await second.inject({ url: '/v1/auth/whoami', headers: org.headers });
        expectProblem(blocked, 429, 'rate_limited');
        assert.equal(blocked.headers['retry-after'], '1');
        expectProblem(await first.inject({ url: '/v1/auth/whoami', headers: org.headers }), 429, 'rate_limited');

        setup.clock.advance(1000);
        assert.equal((await second.inject({ url: '/v1/auth/whoami', headers: org.headers })).statusCode, 200);
      } finally {
        await Promise.all([first.close(), second.close()]);
        await setup.close();
      }
    },
  );

  it(
    'refills atomically in Redis and expires idle buckets',
    { skip: reachable ? false : `Redis unreachable at ${REDIS_URL}` },
    async () => {
      const limiter = new RedisRateLimiter(REDIS_URL);
      const key = `test:${randomBytes(6).toString('hex')}`;
      try {
        const bucket = { rate: 10, burst: 2 };
        const results = await Promise.all(Array.from({ length: 5 }, () => limiter.take(key, bucket, 1_000)));
        assert.equal(results.filter((r) => r.allowed).length, 2, 'concurrent takes never overspend');
        assert.equal((await limiter.take(key, bucket, 1_100)).allowed, true);
        const probe = new Redis(REDIS_URL);
        const ttl = await probe.pttl(`cellgate:rl:${key}`);
        probe.disconnect();
        assert.ok(ttl > 0 && ttl <= 1200, `ttl ${ttl}`);
      } finally {
        await limiter.close();
      }
    },
  );
});
