// Token buckets per credential (or per IP on public routes), in-process by default or in Redis
// so several processes share one budget. Every limited response carries RateLimit-* headers.
//
// An agent credential (API key or OAuth token) also takes from its organization's bucket, the
// same size as a credential's: keys are free to mint, so per key alone an organization's budget
// would grow with every key it creates. The credential's own bucket is taken first, so one hot
// key is stopped before it spends the organization's tokens; the headers describe the tighter
// of the two.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hookList } from './auth.ts';
import { ApiError } from '../lib/errors.ts';
import { clientNetwork } from '../lib/ip.ts';
import { LruMap } from '../lib/lru.ts';
import type { App } from './types.ts';
import type { Bucket, RateLimitPolicy } from '../lib/rate-limit-policy.ts';

export interface TakeResult {
  allowed: boolean;
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until one token is available (meaningful when not allowed). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  take(key: string, bucket: Bucket, nowMs: number): Promise<TakeResult>;
  close(): Promise<void>;
}

export function settle(tokens: number, bucket: Bucket): TakeResult {
  const allowed = tokens >= 1;
  const left = allowed ? tokens - 1 : tokens;
  return {
    allowed,
    remaining: Math.floor(left),
    resetSeconds: Math.ceil((bucket.burst - left) / bucket.rate),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - left) / bucket.rate)),
  };
}

/** How many buckets the in-process limiter keeps; past it, the least recently used go. */
export const MEMORY_BUCKETS = 100_000;

export class MemoryRateLimiter implements RateLimiter {
  // Bounded under a key-spraying flood by dropping the least recently used buckets only: a bucket
  // in use (a spent sign-up budget) outlives any number of new keys made after its last use.
  private readonly buckets: LruMap<string, { tokens: number; at: number }>;

  constructor(capacity = MEMORY_BUCKETS) {
    this.buckets = new LruMap(capacity);
  }

  async take(key: string, bucket: Bucket, nowMs: number): Promise<TakeResult> {
    const state = this.buckets.get(key) ?? { tokens: bucket.burst, at: nowMs };
    const tokens = Math.min(bucket.burst, state.tokens + (Math.max(0, nowMs - state.at) / 1000) * bucket.rate);
    const result = settle(tokens, bucket);
    this.buckets.set(key, { tokens: result.allowed ? tokens - 1 : tokens, at: nowMs });
    return result;
  }

  async close(): Promise<void> {}
}

export interface RateLimitOptions extends RateLimitPolicy {
  limiter: RateLimiter;
  now: () => number;
}

function credentialKey(request: FastifyRequest): string {
  if (request.agent) return `cred:${request.agent.credentialId}`;
  if (request.admin) return `cred:${request.admin.tokenId}`;
  if (request.device) return `cred:${request.device.deviceId}`;
  return `ip:${clientNetwork(request.ip)}`;
}

function setHeaders(
  reply: { header(name: string, value: string | number): unknown },
  bucket: Bucket,
  result: TakeResult,
): void {
  reply.header('RateLimit-Limit', bucket.burst);
  reply.header('RateLimit-Remaining', result.remaining);
  reply.header('RateLimit-Reset', result.resetSeconds);
}

// A limiter outage (Redis down) must not take the API down with it: allow, and say so in the log.
async function takeOrAllow(
  limiter: RateLimiter,
  key: string,
  bucket: Bucket,
  nowMs: number,
  request: FastifyRequest,
): Promise<TakeResult> {
  try {
    return await limiter.take(key, bucket, nowMs);
  } catch (error) {
    request.log.warn({ err: error }, 'rate limiter unavailable; request allowed');
    return { allowed: true, remaining: bucket.burst, resetSeconds: 0, retryAfterSeconds: 0 };
  }
}

/** A token of `bucket` under `key`; over it, 429 `rate_limited` with Retry-After and the bucket's headers. */
async function takeOrRefuse(
  options: Pick<RateLimitOptions, 'limiter' | 'now'>,
  request: FastifyRequest,
  reply: FastifyReply,
  key: string,
  bucket: Bucket,
  detail: string,
): Promise<TakeResult> {
  const result = await takeOrAllow(options.limiter, key, bucket, options.now(), request);
  if (result.allowed) return result;
  setHeaders(reply, bucket, result);
  throw new ApiError('rate_limited', detail, { headers: { 'Retry-After': String(result.retryAfterSeconds) } });
}

const ADDRESS_BUCKETS = {
  sign_up: {
    option: 'signUpPerIp',
    prefix: 'signup',
    detail: 'Too many sign-ups from this address; try again later.',
  },
  sign_in: {
    option: 'signInPerIp',
    prefix: 'signin',
    detail: 'Too many sign-in attempts from this address; try again later.',
  },
} as const;

/**
 * Route-level, after the credential check (register after registerAuth): the bucket key is the
 * authenticated credential, or the client address on public routes.
 */
export function registerRateLimit(app: App, options: RateLimitOptions): void {
  if (!options.perCredential && !options.signUpPerIp && !options.signInPerIp) return;
  app.addHook('onRoute', (route) => {
    const config = route.config ?? {};
    if (config.unlimited || !config.auth) return;
    // Sign-ups and the consoles' sign-ins each take from their own bucket of the address first.
    const perAddress = config.ipLimit ? ADDRESS_BUCKETS[config.ipLimit] : null;
    const addressBucket = perAddress ? options[perAddress.option] : null;
    if (!addressBucket && !options.perCredential) return;
    const limit = async (request: FastifyRequest, reply: FastifyReply) => {
      const taken: { bucket: Bucket; result: TakeResult }[] = [];
      const take = async (key: string, bucket: Bucket, detail: string) =>
        taken.push({ bucket, result: await takeOrRefuse(options, request, reply, key, bucket, detail) });
      if (perAddress && addressBucket)
        await take(`${perAddress.prefix}:${clientNetwork(request.ip)}`, addressBucket, perAddress.detail);
      const bucket = options.perCredential;
      if (bucket) {
        await take(credentialKey(request), bucket, 'Too many requests for this credential; slow down.');
        // The organization's bucket, shared by all its keys and tokens (not admin or device credentials).
        if (request.agent)
          await take(
            `org:${request.agent.organizationId}`,
            bucket,
            'Too many requests for this organization (all its API keys and tokens together); slow down.',
          );
      }
      // The headers describe the tightest bucket the request took from (fewest remaining).
      const tightest = taken.reduce((a, b) => (b.result.remaining < a.result.remaining ? b : a));
      setHeaders(reply, tightest.bucket, tightest.result);
    };
    route.onRequest = [...hookList(route.onRequest), limit];
  });
  const bucket = options.perCredential;
  if (!bucket) return;
  // A request refused before its limit ran (a bad credential, an unverified organization, a
  // missing scope) or sent to no route at all carries the headers too. It is counted in a bucket
  // of its address kept for such answers, so a client's mistakes never spend what the address's
  // public routes (sign-up, the console, OAuth) may still use.
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.hasHeader('ratelimit-limit')) return payload;
    const config = request.routeOptions.config ?? {};
    if (config.unlimited || (!config.auth && !request.is404)) return payload;
    setHeaders(
      reply,
      bucket,
      await takeOrAllow(options.limiter, credentialKey(request), bucket, options.now(), request),
    );
    return payload;
  });
}

/**
 * An onRequest hook for one abuse-prone public route: a bucket per client address under `name`,
 * on the shared limiter (Redis across processes when configured), whatever the per-credential
 * limit says. Over it: 429 `rate_limited` with Retry-After and the RateLimit-* headers.
 */
export function addressLimit(options: {
  limiter: RateLimiter;
  now: () => number;
  name: string;
  bucket: Bucket;
  detail: string;
}) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const key = `${options.name}:${clientNetwork(request.ip)}`;
    await takeOrRefuse(options, request, reply, key, options.bucket, options.detail);
  };
}
