// One delivery attempt: claim due rows, check the URL again (DNS may have changed), sign, POST,
// and record the outcome: success, a retry per the schedule, or a failure that disables the
// endpoint (410 Gone, or 5 days without a success) and emits webhook.disabled.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.ts';
import { checkUrl, type Lookup } from '../../lib/ssrf.ts';
import type { Executor } from '../../db/schema.ts';
import type { EventsService } from '../events/service.ts';
import { EgressTimeout, type Egress } from './egress.ts';
import type { WebhooksRepository } from './repository.ts';
import { FAILURE_WINDOW_MS, parseRetryAfter, retryDelay } from './schedule.ts';
import { deliveryHeaders } from './signing.ts';
import type { WebhookDeliveriesTable, WebhooksTable } from './tables.ts';
import { webhookView } from './views.ts';

/** A claimed attempt is abandoned (and may be claimed again) after this long: well past the timeout. */
const LEASE_MS = 60_000;
export const DEFAULT_TIMEOUT_MS = 15_000;

export interface Claim {
  delivery: WebhookDeliveriesTable;
  webhook: WebhooksTable;
  token: string;
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
  constructor(deps: DelivererDeps) {
    this.deps = deps;
  }

  async claim(limit: number): Promise<Claim[]> {
    const now = this.deps.clock.now();
    const token = randomUUID();
    const rows = await this.deps.repo.claimDue(now.toISOString(), new Date(now.getTime() + LEASE_MS).toISOString(), token, limit);
    if (rows.length === 0) return [];
    const webhooks = new Map((await this.deps.repo.webhooksByIds([...new Set(rows.map((r) => r.webhook_id))])).map((w) => [w.id, w]));
    return rows.flatMap((delivery) => {
      const webhook = webhooks.get(delivery.webhook_id);
      return webhook ? [{ delivery, webhook, token }] : [];
    });
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
    const check = await checkUrl(webhook.url, { allowPrivate: this.deps.allowPrivate, lookup: this.deps.lookup });
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

  private async record({ delivery, webhook, token }: Claim, outcome: Outcome): Promise<void> {
    const { repo, clock } = this.deps;
    const nowDate = clock.now();
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
    await repo.db.transaction().execute(async (tx) => {
      const held = await repo.finishAttempt(tx, delivery.id, token, {
        status: succeeded ? 'succeeded' : delay === null || disableReason ? 'failed' : 'retrying',
        attempts,
        next_attempt_at: succeeded || delay === null || disableReason ? null : new Date(nowDate.getTime() + delay).toISOString(),
        last_status_code: outcome.statusCode,
        last_error: outcome.error,
        last_latency_ms: outcome.latencyMs,
        updated_at: now,
      });
      await repo.insertAttempt(tx, { delivery_id: delivery.id, attempted_at: now, status_code: outcome.statusCode, latency_ms: outcome.latencyMs, error: outcome.error });
      if (!held) return;
      if (succeeded) {
        if (webhook.failing_since) await repo.clearFailing(tx, webhook.id);
      } else if (disableReason) {
        await this.disable(tx, webhook, disableReason, now);
      } else if (!webhook.failing_since) {
        await repo.markFailing(tx, webhook.id, now);
      }
    });
  }

  /** Disables the endpoint once (concurrent failures race on `enabled = 1`) and emits webhook.disabled. */
  private async disable(tx: Executor, webhook: WebhooksTable, reason: string, now: string): Promise<void> {
    if (!(await this.deps.repo.disable(tx, webhook.id, reason, now))) return;
    const view = webhookView({ ...webhook, enabled: 0, disabled_reason: reason, updated_at: now });
    await this.deps.events.emit(tx, { organizationId: webhook.organization_id, type: 'webhook.disabled', data: view });
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
