// The token buckets in Redis, shared by every process (CELLGATE_REDIS_URL); loaded only when
// configured (ioredis weighs ~25 MB of memory).
import { Redis } from 'ioredis';
import type { Bucket } from '../lib/rate-limit-policy.ts';
import { settle, type RateLimiter, type TakeResult } from './rate-limit.ts';

// Refill, take and store atomically in Redis; returns the tokens before taking.
const TAKE_SCRIPT = `
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local rate, burst, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) / 1000 * rate)
local after = tokens
if tokens >= 1 then after = tokens - 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(after), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return tostring(tokens)
`;

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  constructor(url: string) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 2, lazyConnect: false });
    this.redis.defineCommand('cellgateTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
  }

  async take(key: string, bucket: Bucket, nowMs: number): Promise<TakeResult> {
    const take = (this.redis as unknown as { cellgateTake: (...args: unknown[]) => Promise<string> }).cellgateTake;
    const tokens = Number(await take.call(this.redis, `cellgate:rl:${key}`, bucket.rate, bucket.burst, nowMs));
    return settle(tokens, bucket);
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}
