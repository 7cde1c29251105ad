// One delivery attempt: claim due rows, check the URL again (DNS may have changed), sign, POST,
// and record the outcome: success, a retry per the schedule, or a failure that disables the
// endpoint (410 Gone, or 5 days without a success) and emits webhook.disabled.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Clock } from '../../lib/clock.ts';
import { cachedLookup, checkUrl, type Lookup } from '../../lib/ssrf.ts';
import type { EventsService } from '../events/service.ts';
import { EgressTimeout, type Egress } from './egress.ts';
import type { AttemptOutcome, WebhooksRepository } from './repository.ts';
import { FAILURE_WINDOW_MS, parseRetryAfter, retryDelay } from './schedule.ts';
import { deliveryHeaders } from './signing.ts';
import type { Insertable } from 'kysely';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhooksTable } from './tables.ts';
import { webhookView } from './views.ts';

/** A claimed attempt is abandoned (and may be claimed again) after this long: well past the timeout. */
const LEASE_MS = 60_000;
export const DEFAULT_TIMEOUT_MS = 15_000;
/** How long a delivery reuses a checked DNS answer for an endpoint's host. */
const DNS_CACHE_MS = 30_000;
const PROCESS_NAME = `${hostname()}:${process.pid}`;

export interface Claim {
  delivery: WebhookDeliveriesTable;
  webhook: WebhooksTable;
  token: string;
}

/** At most this many outcomes are written per transaction. */
const MAX_BATCH = 500;

/** An attempt's outcome as rows to write. */
interface Written {
  delivery: WebhookDeliveriesTable;
  webhook: WebhooksTable;
  token: string;
  now: string;
  succeeded: boolean;
  disableReason: string | null;
  changes: AttemptOutcome;
  attempt: Insertable<WebhookAttemptsTable>;
}

interface Outcome {
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  retryAfterMs: number | null;
}

export interface DelivererDeps {
  repo: WebhooksRepository;
  clock: Clock;
  events: EventsService;
  allowPrivate: boolean;
  lookup: Lookup;
  egress: Egress;
  timeoutMs: number;
  /** Jitter source, [0, 1). */
  random?: () => number;
}

export class WebhookDeliverer {
  private readonly deps: DelivererDeps;
  private readonly unwritten: { claim: Claim; outcome: Outcome; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private flushing: Promise<void> | null = null;
  private readonly lookup: Lookup;
  constructor(deps: DelivererDeps) {
    this.deps = deps;
    this.lookup = cachedLookup(deps.lookup, DNS_CACHE_MS, () => deps.clock.now().getTime());
  }

  /**
   * Claims up to `limit` due deliveries; returns those to attempt and how many rows were claimed
   * (deliveries of an endpoint disabled since they were queued are held, not attempted).
   */
  async claim(limit: number): Promise<{ claims: Claim[]; claimed: number }> {
    const { repo } = this.deps;
    const now = this.deps.clock.now();
    const token = randomUUID();
    const rows = await repo.claimDue(now.toISOString(), new Date(now.getTime() + LEASE_MS).toISOString(), token, limit);
    if (rows.length === 0) return { claims: [], claimed: 0 };
    const webhooks = new Map((await repo.webhooksByIds([...new Set(rows.map((r) => r.webhook_id))])).map((w) => [w.id, w]));
    const claims: Claim[] = [];
    const held: string[] = [];
    for (const delivery of rows) {
      const webhook = webhooks.get(delivery.webhook_id);
      if (webhook && webhook.enabled === 1 && !webhook.deleted_at) claims.push({ delivery, webhook, token });
      else held.push(delivery.id);
    }
    await repo.hold(held, token, now.toISOString());
    return { claims, claimed: rows.length };
  }

  /** Makes the attempt and records it; never throws for receiver failures. */
  async attempt(claim: Claim): Promise<void> {
    const outcome = await this.send(claim);
    await this.record(claim, outcome);
  }

  private async send({ delivery, webhook }: Claim): Promise<Outcome> {
    const { clock } = this.deps;
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const check = await checkUrl(webhook.url, { allowPrivate: this.deps.allowPrivate, lookup: this.lookup });
    if (!check.ok) return { statusCode: null, error: `${check.code}: ${check.message}`, latencyMs: elapsed(), retryAfterMs: null };
    const now = clock.now();
    const secrets = [webhook.secret];
    if (webhook.previous_secret && webhook.previous_secret_expires_at && webhook.previous_secret_expires_at > now.toISOString()) {
      secrets.push(webhook.previous_secret);
    }
    const timestamp = Math.floor(now.getTime() / 1000);
    try {
      const response = await this.deps.egress({
        url: check.url,
        target: check.target,
        headers: deliveryHeaders(secrets, delivery.event_id, timestamp, delivery.payload),
        body: delivery.payload,
        timeoutMs: this.deps.timeoutMs,
      });
      const ok = response.status >= 200 && response.status < 300;
      return {
        statusCode: response.status,
        error: ok ? null : `HTTP ${response.status}`,
        latencyMs: elapsed(),
        retryAfterMs: ok ? null : parseRetryAfter(response.retryAfter, clock.now()),
      };
    } catch (error) {
      const message = error instanceof EgressTimeout ? `timeout: ${error.message}` : connectionError(error);
      return { statusCode: null, error: message, latencyMs: elapsed(), retryAfterMs: null };
    }
  }

  /** Queues the outcome for the next batch write; resolves once it is committed. */
  private record(claim: Claim, outcome: Outcome): Promise<void> {
    return new Promise((resolve, reject) => {
      this.unwritten.push({ claim, outcome, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  /**
   * Writes queued outcomes, many per transaction: while one batch commits, the next gathers, so
   * under load a commit (an fsync on PostgreSQL) serves hundreds of attempts. A failed batch is
   * retried by the lease running out (at least once, never lost).
   */
  private async flush(): Promise<void> {
    // Let the responses that arrived in this turn of the event loop join the batch (SQLite runs
    // synchronously, so nothing else would gather while a batch commits).
    await new Promise((resolve) => setImmediate(resolve));
    for (;;) {
      if (this.unwritten.length === 0) {
        // Cleared in the same step as the emptiness check, so an outcome queued next starts a new flush.
        this.flushing = null;
        return;
      }
      const batch = this.unwritten.splice(0, MAX_BATCH);
      try {
        await this.writeBatch(batch.map((b) => this.outcomeChanges(b.claim, b.outcome)));
        for (const item of batch) item.resolve();
      } catch (error) {
        for (const item of batch) item.reject(error);
      }
    }
  }

  private outcomeChanges({ delivery, webhook, token }: Claim, outcome: Outcome): Written {
    const nowDate = this.deps.clock.now();
    const now = nowDate.toISOString();
    const attempts = delivery.attempts + 1;
    const succeeded = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
    const gone = outcome.statusCode === 410;
    const delay = succeeded || gone ? null : retryDelay(attempts, outcome.retryAfterMs, this.deps.random);
    const failingSince = webhook.failing_since ?? now;
    const disableReason = gone
      ? 'The endpoint answered 410 Gone.'
      : !succeeded && nowDate.getTime() - Date.parse(failingSince) >= FAILURE_WINDOW_MS
        ? 'Every delivery failed for 5 days.'
        : null;
    const retryAt = succeeded || delay === null || disableReason ? null : new Date(nowDate.getTime() + delay).toISOString();
    return {
      delivery,
      webhook,
      token,
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
      },
      attempt: { delivery_id: delivery.id, attempted_at: now, status_code: outcome.statusCode, latency_ms: outcome.latencyMs, error: outcome.error, attempted_by: PROCESS_NAME },
    };
  }

  private async writeBatch(items: Written[]): Promise<void> {
    const { repo } = this.deps;
    await repo.db.transaction().execute(async (tx) => {
      const written = await repo.finishAttempts(tx, items.map((i) => i.changes));
      const held = items.filter((i) => written.has(i.delivery.id));
      await repo.insertAttempts(tx, items.map((i) => i.attempt));
      // Endpoint state last and in id order: concurrent batches lock endpoints in one order, and
      // the webhook.disabled emits (which serialise the outbox) come after every other write.
      const byWebhook = new Map<string, Written>();
      for (const item of held) {
        const seen = byWebhook.get(item.webhook.id);
        if (!seen || item.disableReason || (item.succeeded && !seen.disableReason)) byWebhook.set(item.webhook.id, item);
      }
      const endpoints = [...byWebhook.values()].sort((a, b) => a.webhook.id.localeCompare(b.webhook.id));
      for (const item of endpoints) {
        if (item.disableReason) continue;
        if (item.succeeded && item.webhook.failing_since) await repo.clearFailing(tx, item.webhook.id);
        if (!item.succeeded && !item.webhook.failing_since) await repo.markFailing(tx, item.webhook.id, item.now);
      }
      for (const item of endpoints) {
        // The first to disable an endpoint (concurrent failures race on enabled = 1) reports it.
        if (!item.disableReason || !(await repo.disable(tx, item.webhook.id, item.disableReason, item.now))) continue;
        const view = webhookView({ ...item.webhook, enabled: 0, disabled_reason: item.disableReason, updated_at: item.now });
        await this.deps.events.emit(tx, { organizationId: item.webhook.organization_id, type: 'webhook.disabled', data: view });
      }
    });
  }
}

function connectionError(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' ? `${code}: ${message}` : message;
}

/** What tests and benchmarks may replace (AppDeps.webhooks). */
export interface WebhookOptions {
  lookup?: Lookup;
  egress?: Egress;
  timeoutMs?: number;
  random?: () => number;
  pollMs?: number;
  concurrency?: number;
}
