// Idempotency-Key for sends and cycle jobs (contract §2): scope organization + route + key,
// kept 24 hours. Same request replays the stored response; a different request is 422; a
// request still running is 409. Validation failures never reach the claim (it runs in
// preHandler), and 5xx outcomes release the key so the client can retry.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { createHash } from 'node:crypto';
import type { Database } from '../db/database.ts';
import type { Clock } from '../lib/clock.ts';
import { hookList } from './auth.ts';
import { ApiError } from './errors.ts';
import type { App } from './types.ts';

const TTL_MS = 24 * 60 * 60 * 1000;
const ABANDONED_MS = 2 * 60 * 1000;
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

interface Claim {
  organizationId: string;
  route: string;
  key: string;
}

const claims = new WeakMap<FastifyRequest, Claim>();

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

function requestHash(request: FastifyRequest): string {
  const path = request.url.split('?')[0];
  return createHash('sha256').update(`${request.method} ${path}\n${canonicalJson(request.body)}`).digest('hex');
}

export class IdempotencyStore {
  private readonly database: Database;
  private readonly clock: Clock;
  constructor(database: Database, clock: Clock) {
    this.database = database;
    this.clock = clock;
  }

  /** Inserts an in-progress row; false when the key is already held by a live row. */
  async tryClaim(claim: Claim, hash: string): Promise<boolean> {
    const now = this.clock.now();
    const result = await this.database.db
      .insertInto('idempotency_keys')
      .values({
        organization_id: claim.organizationId,
        route: claim.route,
        key: claim.key,
        request_hash: hash,
        state: 'in_progress',
        response_status: null,
        response_body: null,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + TTL_MS).toISOString(),
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  find(claim: Claim) {
    return this.database.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('organization_id', '=', claim.organizationId)
      .where('route', '=', claim.route)
      .where('key', '=', claim.key)
      .executeTakeFirst();
  }

  /** Frees the key when its row expired or its request was abandoned. */
  async deleteIfStale(claim: Claim): Promise<void> {
    await this.database.db
      .deleteFrom('idempotency_keys')
      .where('organization_id', '=', claim.organizationId)
      .where('route', '=', claim.route)
      .where('key', '=', claim.key)
      .where((eb) =>
        eb.or([
          eb('expires_at', '<=', this.clock.now().toISOString()),
          // A claim whose process died mid-request would otherwise hold the key for 24 hours.
          eb.and([eb('state', '=', 'in_progress'), eb('created_at', '<=', new Date(this.clock.now().getTime() - ABANDONED_MS).toISOString())]),
        ]),
      )
      .execute();
  }

  async complete(claim: Claim, status: number, body: string): Promise<void> {
    await this.database.db
      .updateTable('idempotency_keys')
      .set({ state: 'completed', response_status: status, response_body: body })
      .where('organization_id', '=', claim.organizationId)
      .where('route', '=', claim.route)
      .where('key', '=', claim.key)
      .execute();
  }

  async release(claim: Claim): Promise<void> {
    await this.database.db
      .deleteFrom('idempotency_keys')
      .where('organization_id', '=', claim.organizationId)
      .where('route', '=', claim.route)
      .where('key', '=', claim.key)
      .execute();
  }

  async pruneExpired(): Promise<number> {
    const result = await this.database.db
      .deleteFrom('idempotency_keys')
      .where('expires_at', '<=', sql<string>`${this.clock.now().toISOString()}`)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

async function replayOrReject(store: IdempotencyStore, claim: Claim, hash: string, reply: FastifyReply): Promise<boolean> {
  const existing = await store.find(claim);
  if (!existing) return false;
  if (existing.request_hash !== hash) {
    throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request in the last 24 hours.');
  }
  if (existing.state === 'in_progress') {
    throw new ApiError('idempotency_request_in_progress', 'A request with this Idempotency-Key is still being processed; retry shortly.');
  }
  const status = existing.response_status ?? 200;
  await reply
    .code(status)
    .header('Idempotent-Replayed', 'true')
    .type(status >= 400 ? 'application/problem+json; charset=utf-8' : 'application/json; charset=utf-8')
    .send(existing.response_body);
  return true;
}

async function claimOrReplay(store: IdempotencyStore, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  if (!request.agent) return;
  const header = request.headers['idempotency-key'];
  if (header === undefined) return;
  if (typeof header !== 'string' || !KEY_PATTERN.test(header)) {
    throw new ApiError('invalid_request', 'Idempotency-Key must be 1-255 printable characters.', {
      errors: [{ field: 'Idempotency-Key', code: 'invalid_format', message: 'Idempotency-Key must be 1-255 printable characters.' }],
    });
  }
  const claim: Claim = { organizationId: request.agent.organizationId, route: request.routeOptions.url ?? '', key: header };
  const hash = requestHash(request);
  for (let attempt = 0; attempt < 2; attempt++) {
    if (await store.tryClaim(claim, hash)) {
      claims.set(request, claim);
      return;
    }
    await store.deleteIfStale(claim);
    if (await replayOrReject(store, claim, hash, reply)) return reply;
  }
  throw new ApiError('idempotency_request_in_progress', 'A request with this Idempotency-Key is still being processed; retry shortly.');
}

async function storeOutcome(store: IdempotencyStore, request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  const claim = claims.get(request);
  if (!claim) return payload;
  claims.delete(request);
  if (reply.statusCode >= 500) await store.release(claim);
  else await store.complete(claim, reply.statusCode, typeof payload === 'string' ? payload : String(payload ?? ''));
  return payload;
}

/** Attaches the Idempotency-Key hooks to routes whose config says `idempotent: true` (only those). */
export function registerIdempotency(app: App, store: IdempotencyStore): void {
  app.addHook('onRoute', (route) => {
    if (!route.config?.idempotent) return;
    // preHandler runs after validation, so a request that fails validation is never stored.
    route.preHandler = [...hookList(route.preHandler), (request, reply) => claimOrReplay(store, request, reply)];
    route.onSend = [...hookList(route.onSend), (request, reply, payload) => storeOutcome(store, request, reply, payload)];
  });
}
