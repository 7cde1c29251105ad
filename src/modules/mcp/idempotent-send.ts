// send_message with a required idempotency_key, on the REST send's idempotency store and rules
// (contract §2): scope organization + "route" (here the tool) + key, 24 hours; the same arguments
// replay the first outcome, other arguments are idempotency_key_reused, a key still running is
// idempotency_request_in_progress. The outcome is written in the send's own transaction (the
// recorder), exactly as the REST route does; like REST, 400s, 402s and 5xx are not kept.
import { createHash } from 'node:crypto';
import { recordOutcomes, type IdempotencyStore } from '../../http/idempotency.ts';
import { canonicalJson } from '../../lib/canonical-json.ts';
import { ApiError } from '../../lib/errors.ts';
import type { MessageView } from '../messages/views.ts';
import { errorOf } from './results.ts';

/** The idempotency "route" of MCP sends: their keys never meet the REST route's. */
export const SEND_ROUTE = 'mcp:send_message';

export type SendOutcome = { message: MessageView; replayed: boolean } | { error: ReturnType<typeof errorOf> & { status: number }; replayed: true };

const inProgress = () => new ApiError('idempotency_request_in_progress', 'A send_message with this idempotency_key is still being processed; retry shortly.');
const reused = () => new ApiError('idempotency_key_reused', 'This idempotency_key was used with different arguments in the last 24 hours.');

export async function idempotentSend(
  store: IdempotencyStore,
  organizationId: string,
  key: string,
  args: Record<string, unknown>,
  work: (record: (body: unknown) => ReturnType<IdempotencyStore['outcome']>) => Promise<MessageView>,
): Promise<SendOutcome> {
  const claim = { organizationId, route: SEND_ROUTE, key };
  const hash = createHash('sha256').update(`${SEND_ROUTE}\n${canonicalJson(args)}`).digest('hex');
  const flightKey = `${organizationId}\n${SEND_ROUTE}\n${key}`;
  // Checked and taken synchronously: simultaneous calls with one key see each other.
  if (store.inFlight.has(flightKey)) throw inProgress();
  store.inFlight.add(flightKey);
  try {
    try {
      const message = await work((body) => store.outcome(claim, hash, 202, JSON.stringify(body)));
      return { message, replayed: false };
    } catch (error) {
      // The work rolled back: a live record of the key answers instead (a replay, or reused).
      const existing = await store.findLive(claim).catch(() => undefined);
      if (existing) {
        if (existing.request_hash !== hash) throw reused();
        const body = JSON.parse(existing.response_body ?? 'null');
        return (existing.response_status ?? 202) >= 400 ? { error: body, replayed: true } : { message: body as MessageView, replayed: true };
      }
      // A refusal of the rules (404, 409) is kept, as REST keeps it; 400, 402 and 5xx are not.
      if (error instanceof ApiError && error.status !== 400 && error.status !== 402 && error.status < 500) {
        await recordOutcomes(store.db, [store.outcome(claim, hash, error.status, JSON.stringify({ ...errorOf(error), status: error.status }))]).catch(() => {});
      }
      throw error;
    }
  } finally {
    store.inFlight.delete(flightKey);
  }
}
