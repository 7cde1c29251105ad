// Idempotency-Key for sends and cycle jobs (contract §2): scope organization + route + key,
// kept 24 hours. Same request replays the stored response with Idempotent-Replayed: true; a
// different request is 422; a request still running is 409.
//
// The outcome is written in the same transaction as the work when the service takes a recorder
// (idempotencyRecorder), so a send costs one commit, not three; such routes (`idempotent:
// 'recorded'`) also skip the lookup before the work (see recordedResponse). Concurrent requests
// with one key are caught in-process before any work (409), and across processes by the unique
// key: the loser's transaction rolls back whole, so the work happens once.
// Not stored: schema validation failures (they never reach preHandler), other 400s, and 5xx.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { Type } from 'typebox';
import { createHash } from 'node:crypto';
import type { Database } from '../db/database.ts';
import { prepared, preparedRows } from '../db/prepared.ts';
import type { Executor } from '../db/schema.ts';
import type { Clock } from '../lib/clock.ts';
import type { IdempotencyKeysTable } from './idempotency-tables.ts';
import { hookList } from './auth.ts';
import { ApiError } from '../lib/errors.ts';
import type { App } from './types.ts';
import { canonicalJson } from '../lib/canonical-json.ts';

const TTL_MS = 24 * 60 * 60 * 1000;
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/**
 * `schema.headers` of a route that takes an Idempotency-Key (config.idempotent): validated with
 * the request and documented as its header parameter, 1-255 printable ASCII characters, optional.
 */
export const IdempotencyKeyHeaders = Type.Object({
  'Idempotency-Key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x20-\\x7e]*$',
      description:
        'Makes retries safe: the same key with the same request within 24 hours replays the first answer (Idempotent-Replayed: true); with a different request it is 422. 1-255 printable ASCII characters.',
      examples: ['order-4711-confirmation'],
    }),
  ),
});

interface Claim {
  organizationId: string;
  route: string;
  key: string;
}

interface Pending {
  store: IdempotencyStore;
  claim: Claim;
  hash: string;
  flightKey: string;
  /** The outcome is already written (in the service's transaction), or must never be. */
  settled: boolean;
  /** The key's record was looked up before the work (false for `idempotent: 'recorded'` routes). */
  lookedUp: boolean;
}

/** A response to keep for a key, written by recordOutcomes in the transaction of the work. */
export interface IdempotencyOutcome extends Claim {
  hash: string;
  status: number;
  body: string;
  createdAt: string;
  expiresAt: string;
}

/** Turns the response body of this request into its outcome (see idempotencyRecorder). */
export type IdempotencyRecorder = (body: unknown) => IdempotencyOutcome;

const pending = new WeakMap<FastifyRequest, Pending>();

/** Method, path and canonical body: what makes two requests "the same". */
export function requestHash(request: FastifyRequest): string {
  const path = request.url.split('?')[0];
  return createHash('sha256')
    .update(`${request.method} ${path}\n${canonicalJson(request.body)}`)
    .digest('hex');
}

const findLiveKey = prepared((ex, p: Claim & { now: string }) =>
  ex
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('organization_id', '=', p.organizationId)
    .where('route', '=', p.route)
    .where('key', '=', p.key)
    .where('expires_at', '>', p.now),
);

const insertKeys = preparedRows((ex, outcomes: IdempotencyOutcome[]) =>
  ex
    .insertInto('idempotency_keys')
    .values(
      outcomes.map((outcome) => ({
        organization_id: outcome.organizationId,
        route: outcome.route,
        key: outcome.key,
        request_hash: outcome.hash,
        state: 'completed' as const,
        response_status: outcome.status,
        response_body: outcome.body,
        created_at: outcome.createdAt,
        expires_at: outcome.expiresAt,
      })),
    )
    // An expired record of the key is replaced; a live one wins.
    .onConflict((oc) =>
      oc
        .columns(['organization_id', 'route', 'key'])
        .doUpdateSet((eb) => ({
          request_hash: eb.ref('excluded.request_hash'),
          state: eb.ref('excluded.state'),
          response_status: eb.ref('excluded.response_status'),
          response_body: eb.ref('excluded.response_body'),
          created_at: eb.ref('excluded.created_at'),
          expires_at: eb.ref('excluded.expires_at'),
        }))
        .where('idempotency_keys.expires_at', '<=', (eb) => eb.ref('excluded.created_at')),
    ),
);

/** One string per key: the in-flight set's entry, and the order batches write keys in. */
const claimKey = (claim: Claim) => `${claim.organizationId}\n${claim.route}\n${claim.key}`;

/** Writes the outcomes in the caller's transaction; false when another request holds a live record of one of the keys. */
async function insertOutcomes(ex: Executor, outcomes: readonly IdempotencyOutcome[]): Promise<boolean> {
  // In key order, so concurrent batches of two processes wait on each other's keys in one order.
  const ordered = [...outcomes].sort((a, b) => (claimKey(a) < claimKey(b) ? -1 : 1));
  const result = await insertKeys(ex, ordered);
  return Number(result.numAffectedRows ?? 0) === outcomes.length;
}

/**
 * Writes outcomes (from idempotencyRecorder) in the transaction of their work. When another
 * request holds one of the keys, throws 409 idempotency_request_in_progress, so the work rolls back.
 */
export async function recordOutcomes(ex: Executor, outcomes: readonly IdempotencyOutcome[]): Promise<void> {
  if (outcomes.length > 0 && !(await insertOutcomes(ex, outcomes))) throw inProgress();
}

const inProgress = () =>
  new ApiError(
    'idempotency_request_in_progress',
    'A request with this Idempotency-Key is still being processed; retry shortly.',
  );

export class IdempotencyStore {
  private readonly database: Database;
  private readonly clock: Clock;
  /** Keys whose first request is running in this process. */
  readonly inFlight = new Set<string>();

  constructor(database: Database, clock: Clock) {
    this.database = database;
    this.clock = clock;
  }

  /** The live (unexpired) record of a key, if any. */
  findLive(claim: Claim) {
    return findLiveKey.first(this.database.db, { ...claim, now: this.clock.now().toISOString() });
  }

  /** The outcome of a request with `claim`, answered now. */
  outcome(claim: Claim, hash: string, status: number, body: string): IdempotencyOutcome {
    const now = this.clock.now();
    return {
      ...claim,
      hash,
      status,
      body,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + TTL_MS).toISOString(),
    };
  }

  async pruneExpired(): Promise<number> {
    const result = await this.database.db
      .deleteFrom('idempotency_keys')
      .where('expires_at', '<=', sql<string>`${this.clock.now().toISOString()}`)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  get db() {
    return this.database.db;
  }
}

async function claimOrReplay(
  store: IdempotencyStore,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply | undefined> {
  if (!request.agent) return;
  const header = request.headers['idempotency-key'];
  if (header === undefined) return;
  if (typeof header !== 'string' || !KEY_PATTERN.test(header)) {
    throw new ApiError('invalid_request', 'Idempotency-Key must be 1-255 printable characters.', {
      errors: [
        {
          field: 'Idempotency-Key',
          code: 'invalid_format',
          message: 'Idempotency-Key must be 1-255 printable characters.',
        },
      ],
    });
  }
  const claim: Claim = {
    organizationId: request.agent.organizationId,
    route: request.routeOptions.url ?? '',
    key: header,
  };
  const flightKey = claimKey(claim);
  // Checked and taken synchronously, before any await: simultaneous requests see each other.
  if (store.inFlight.has(flightKey)) throw inProgress();
  store.inFlight.add(flightKey);
  const hash = requestHash(request);
  // A route whose service records the outcome in its own transaction skips the lookup: a fresh key
  // (the common case) costs no read, and a used one shows when the work fails (recordedResponse).
  if (request.routeOptions.config.idempotent === 'recorded') {
    pending.set(request, { store, claim, hash, flightKey, settled: false, lookedUp: false });
    return;
  }
  let existing;
  try {
    existing = await store.findLive(claim);
  } catch (error) {
    store.inFlight.delete(flightKey);
    throw error;
  }
  if (existing) {
    store.inFlight.delete(flightKey);
    return replay(reply, existing, hash);
  }
  pending.set(request, { store, claim, hash, flightKey, settled: false, lookedUp: true });
}

/** Answers a request whose key has a live record: the stored response, or 422 for another request. */
function replay(
  reply: FastifyReply,
  existing: Pick<IdempotencyKeysTable, 'request_hash' | 'response_status' | 'response_body'>,
  hash: string,
): FastifyReply {
  if (existing.request_hash !== hash) {
    throw new ApiError(
      'idempotency_key_reused',
      'This Idempotency-Key was used with a different request in the last 24 hours.',
    );
  }
  const status = existing.response_status ?? 200;
  return reply
    .code(status)
    .header('Idempotent-Replayed', 'true')
    .type(status >= 400 ? 'application/problem+json; charset=utf-8' : 'application/json; charset=utf-8')
    .send(existing.response_body);
}

/**
 * The handler of an `idempotent: 'recorded'` route: answers `status` with what `work` returns,
 * `work` having written it with the recorder in its transaction. The key was not looked up
 * beforehand, so when the work fails (it rolled back) a live record of the key answers instead:
 * a replay, or 422 for another request. A lost race with another process ends the same way.
 */
export async function recordedResponse(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  work: (record?: IdempotencyRecorder) => Promise<unknown>,
): Promise<FastifyReply> {
  try {
    return reply.code(status).send(await work(idempotencyRecorder(request, status)));
  } catch (error) {
    const entry = pending.get(request);
    // If the lookup fails too (database down), the work's own error is the better answer.
    const existing =
      entry && !entry.lookedUp ? await entry.store.findLive(entry.claim).catch(() => undefined) : undefined;
    if (!entry || !existing) throw error;
    entry.settled = true;
    return replay(reply, existing, entry.hash);
  }
}

/**
 * For a service transaction: makes `body` this request's response with `status`, for the service
 * to write with recordOutcomes in its transaction. Undefined when the request has no Idempotency-Key.
 */
function idempotencyRecorder(request: FastifyRequest, status: number): IdempotencyRecorder | undefined {
  const entry = pending.get(request);
  if (!entry) return undefined;
  return (body) => {
    // settled either way: on a lost race the transaction rolls back and the 409 is not kept.
    entry.settled = true;
    return entry.store.outcome(entry.claim, entry.hash, status, JSON.stringify(body));
  };
}

async function storeOutcome(
  store: IdempotencyStore,
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  const entry = pending.get(request);
  if (!entry) return payload;
  pending.delete(request);
  store.inFlight.delete(entry.flightKey);
  // 400s (value validation in the rules) and 5xx are not kept: the client fixes or retries. Nor
  // is a 402: the client pays and retries the same request with the same key (x402 does so).
  if (entry.settled || reply.statusCode === 400 || reply.statusCode === 402 || reply.statusCode >= 500) return payload;
  await insertOutcomes(store.db, [
    store.outcome(
      entry.claim,
      entry.hash,
      reply.statusCode,
      typeof payload === 'string' ? payload : String(payload ?? ''),
    ),
  ]);
  return payload;
}

function releaseFlight(store: IdempotencyStore, request: FastifyRequest): void {
  const entry = pending.get(request);
  if (entry) store.inFlight.delete(entry.flightKey);
}

/** Attaches the Idempotency-Key hooks to routes whose config says `idempotent` (only those). */
export function registerIdempotency(app: App, store: IdempotencyStore): void {
  app.addHook('onRoute', (route) => {
    // Routes bound from an operation claim their keys in invoke (src/operations/invoke.ts).
    if (!route.config?.idempotent || route.config.idempotent === 'operation') return;
    // preHandler runs after validation, so a request that fails validation is never stored.
    route.preHandler = [...hookList(route.preHandler), (request, reply) => claimOrReplay(store, request, reply)];
    route.onSend = [
      ...hookList(route.onSend),
      (request, reply, payload) => storeOutcome(store, request, reply, payload),
    ];
    // Whatever happened (error, hang-up), the key is no longer running here.
    route.onResponse = [...hookList(route.onResponse), async (request) => releaseFlight(store, request)];
    route.onRequestAbort = [...hookList(route.onRequestAbort), async (request) => releaseFlight(store, request)];
  });
}
