// What an attempt's result means for its delivery: success, a retry when the schedule says, or
// failure; and for its endpoint: 410 Gone or 5 days without a success disables it.
import type { AttemptOutcome } from './repository.ts';
import { FAILURE_WINDOW_MS, retryDelay } from './schedule.ts';
import type { WebhookDeliveriesTable, WebhooksTable } from './tables.ts';

export interface Claim {
  delivery: WebhookDeliveriesTable;
  webhook: WebhooksTable;
  token: string;
}

/** What the receiver did: a status code, or an error (timeout, connection, URL guard). */
export interface Outcome {
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  retryAfterMs: number | null;
  /** What was sent (null: nothing was) and the start of what came back (null: nothing did). */
  requestHeaders?: Record<string, string> | null;
  responseBody?: string | null;
}

/** An attempt's outcome as rows to write. */
export type Settled = ReturnType<typeof settle>;

export function settle(
  { delivery, webhook, token }: Claim,
  outcome: Outcome,
  nowDate: Date,
  attemptedBy: string,
  random?: () => number,
) {
  const now = nowDate.toISOString();
  const attempts = delivery.attempts + 1;
  const succeeded = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
  const gone = outcome.statusCode === 410;
  const delay = succeeded || gone ? null : retryDelay(attempts, outcome.retryAfterMs, random);
  const failingSince = webhook.failing_since ?? now;
  const disableReason = gone
    ? 'The endpoint answered 410 Gone.'
    : !succeeded && nowDate.getTime() - Date.parse(failingSince) >= FAILURE_WINDOW_MS
      ? 'Every delivery failed for 5 days.'
      : null;
  const retryAt =
    succeeded || delay === null || disableReason ? null : new Date(nowDate.getTime() + delay).toISOString();
  return {
    delivery,
    webhook,
    now,
    succeeded,
    disableReason,
    changes: {
      id: delivery.id,
      token,
      status: succeeded ? 'succeeded' : retryAt ? 'retrying' : 'failed',
      attempts,
      next_attempt_at: retryAt,
      last_status_code: outcome.statusCode,
      last_error: outcome.error,
      last_latency_ms: outcome.latencyMs,
      updated_at: now,
    } satisfies AttemptOutcome,
    attempt: {
      delivery_id: delivery.id,
      attempted_at: now,
      status_code: outcome.statusCode,
      latency_ms: outcome.latencyMs,
      error: outcome.error,
      attempted_by: attemptedBy,
      request_headers: outcome.requestHeaders ? JSON.stringify(outcome.requestHeaders) : null,
      response_body: outcome.responseBody ?? null,
    },
  };
}
