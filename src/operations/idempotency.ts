// Idempotency-Key for sends and cycle jobs (contract §2): scope organization + route + key,
// kept 24 hours. The rules (replay, 422 for another request, 409 while running, what is kept) are
// applied by invoke (./invoke.ts) for every operation; this file is the store of the records (REST's
// header schema and request hash are the REST binder's, ./rest.ts).
//
// The outcome is written in the same transaction as the work when the service takes a recorder
// (`ctx.record` of a `recorded` operation), so a send costs one commit, not three. Concurrent
// requests with one key are caught in-process before any work (409), and across processes by the
// unique key: the loser's transaction rolls back whole, so the work happens once.
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { prepared, preparedRows } from '../db/prepared.ts';
import type { Executor } from '../db/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { ApiError } from '../lib/errors.ts';

const TTL_MS = 24 * 60 * 60 * 1000;

interface Claim {
  organizationId: string;
  route: string;
  key: string;
}

/** A response to keep for a key, written by recordOutcomes in the transaction of the work. */
export interface IdempotencyOutcome extends Claim {
  hash: string;
  status: number;
  body: string;
  createdAt: string;
  expiresAt: string;
}

/** Turns the answer of the call into its outcome, for the service to write in its transaction (`ctx.record`). */
export type IdempotencyRecorder = (body: unknown) => IdempotencyOutcome;

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
