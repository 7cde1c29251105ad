// One delivery attempt: claim due rows, check the URL again (DNS may have changed), sign, POST,
// and hand the outcome to the recorder (success, retry per the schedule, or failure).
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Clock } from '../../lib/clock.ts';
import { cachedLookup, checkUrl, type Lookup } from '../../lib/ssrf.ts';
import type { EventsService } from '../events/service.ts';
import { EgressTimeout, KEPT_RESPONSE_BYTES, type Egress } from './egress.ts';
import type { Claim, Outcome } from './outcome.ts';
import { OutcomeRecorder } from './recorder.ts';
import type { WebhooksRepository } from './repository.ts';
import { parseRetryAfter } from './schedule.ts';
import { deliveryHeaders } from './signing.ts';

/** A claimed attempt is abandoned (and may be claimed again) after this long: well past the timeout. */
const LEASE_MS = 60_000;
export const DEFAULT_TIMEOUT_MS = 15_000;
/** How long a delivery reuses a checked DNS answer for an endpoint's host. */
const DNS_CACHE_MS = 30_000;
const PROCESS_NAME = `${hostname()}:${process.pid}`;

export type DelivererDeps = Required<Pick<WebhookOptions, 'lookup' | 'egress' | 'timeoutMs'>> &
  Pick<WebhookOptions, 'random'> & {
    repo: WebhooksRepository;
    clock: Clock;
    events: EventsService;
    allowPrivate: boolean;
  };

export class WebhookDeliverer {
  private readonly deps: DelivererDeps;
  private readonly lookup: Lookup;
  private readonly recorder: OutcomeRecorder;
  constructor(deps: DelivererDeps) {
    this.deps = deps;
    this.lookup = cachedLookup(deps.lookup, DNS_CACHE_MS, () => deps.clock.now().getTime());
    const { repo, clock, events, random } = deps;
    this.recorder = new OutcomeRecorder({ repo, clock, events, attemptedBy: PROCESS_NAME, random });
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
    const webhooks = new Map(
      (await repo.webhooksByIds([...new Set(rows.map((r) => r.webhook_id))])).map((w) => [w.id, w]),
    );
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
    await this.recorder.record(claim, await this.send(claim));
  }

  private async send({ delivery, webhook }: Claim): Promise<Outcome> {
    const { clock } = this.deps;
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const check = await checkUrl(webhook.url, { allowPrivate: this.deps.allowPrivate, lookup: this.lookup });
    if (!check.ok)
      return { statusCode: null, error: `${check.code}: ${check.message}`, latencyMs: elapsed(), retryAfterMs: null };
    const now = clock.now();
    // During a rotation the previous secret signs too.
    const { previous_secret: previous, previous_secret_expires_at: until } = webhook;
    const secrets = previous && until && until > now.toISOString() ? [webhook.secret, previous] : [webhook.secret];
    const timestamp = Math.floor(now.getTime() / 1000);
    const requestHeaders = deliveryHeaders(secrets, delivery.event_id, timestamp, delivery.payload);
    try {
      const response = await this.deps.egress({
        url: check.url,
        target: check.target,
        headers: requestHeaders,
        body: delivery.payload,
        timeoutMs: this.deps.timeoutMs,
      });
      const ok = response.status >= 200 && response.status < 300;
      return {
        statusCode: response.status,
        error: ok ? null : `HTTP ${response.status}`,
        latencyMs: elapsed(),
        retryAfterMs: ok ? null : parseRetryAfter(response.retryAfter, clock.now()),
        requestHeaders,
        responseBody:
          response.body === undefined
            ? null
            : Buffer.from(response.body).subarray(0, KEPT_RESPONSE_BYTES).toString('utf8'),
      };
    } catch (error) {
      const message = error instanceof EgressTimeout ? `timeout: ${error.message}` : connectionError(error);
      return { statusCode: null, error: message, latencyMs: elapsed(), retryAfterMs: null, requestHeaders };
    }
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
  /** Jitter source, [0, 1). */
  random?: () => number;
  pollMs?: number;
  concurrency?: number;
}
