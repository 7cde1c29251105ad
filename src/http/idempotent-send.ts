// A send under an idempotency key outside the REST route's hooks (MCP's send_message, the
// console's send form), on the REST send's idempotency store and rules (contract §2): scope
// organization + route + key, 24 hours; the same arguments replay the first outcome, other
// arguments are idempotency_key_reused, a key still running is idempotency_request_in_progress.
// The outcome is written in the send's own transaction (the recorder), exactly as the REST route
// does; like REST, 400s, 402s and 5xx are not kept.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../lib/canonical-json.ts';
import { ApiError, errorOf } from '../lib/errors.ts';
import { recordOutcomes, type IdempotencyStore } from './idempotency.ts';

/** Where the keys live (they never meet another route's) and what the two refusals say. */
export interface IdempotentRoute {
  route: string;
  inProgress: string;
  reused: string;
}

export type StoredError = ReturnType<typeof errorOf> & { status: number };
export type SendOutcome<T> = { message: T; replayed: boolean } | { error: StoredError; replayed: true };

export async function idempotentSend<T>(
  store: IdempotencyStore,
  at: IdempotentRoute,
  organizationId: string,
  key: string,
  args: Record<string, unknown>,
  work: (record: (body: unknown) => ReturnType<IdempotencyStore['outcome']>) => Promise<T>,
): Promise<SendOutcome<T>> {
  const { route } = at;
  const claim = { organizationId, route, key };
  const hash = createHash('sha256')
    .update(`${route}\n${canonicalJson(args)}`)
    .digest('hex');
  const flightKey = `${organizationId}\n${route}\n${key}`;
  // Checked and taken synchronously: simultaneous calls with one key see each other.
  if (store.inFlight.has(flightKey)) throw new ApiError('idempotency_request_in_progress', at.inProgress);
  store.inFlight.add(flightKey);
  try {
    try {
      const message = await work((body) => store.outcome(claim, hash, 202, JSON.stringify(body)));
      return { message, replayed: false };
    } catch (error) {
      // The work rolled back: a live record of the key answers instead (a replay, or reused).
      const existing = await store.findLive(claim).catch(() => undefined);
      if (existing) {
        if (existing.request_hash !== hash) throw new ApiError('idempotency_key_reused', at.reused);
        const body = JSON.parse(existing.response_body ?? 'null');
        return (existing.response_status ?? 202) >= 400
          ? { error: body, replayed: true }
          : { message: body as T, replayed: true };
      }
      // A refusal of the rules (404, 409) is kept, as REST keeps it; 400, 402 and 5xx are not.
      if (error instanceof ApiError && error.status !== 400 && error.status !== 402 && error.status < 500) {
        await recordOutcomes(store.db, [
          store.outcome(claim, hash, error.status, JSON.stringify({ ...errorOf(error), status: error.status })),
        ]).catch(() => {});
      }
      throw error;
    }
  } finally {
    store.inFlight.delete(flightKey);
  }
}
