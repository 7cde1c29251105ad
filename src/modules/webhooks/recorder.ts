// Writes attempts' outcomes in batches: while one batch commits, the next gathers, so under load
// one commit (an fsync on PostgreSQL) serves hundreds of attempts. A failed batch is retried by
// the leases running out (at least once, never lost).
import type { DelivererDeps } from './delivery.ts';
import { settle, type Claim, type Outcome, type Settled } from './outcome.ts';
import { webhookView } from './views.ts';
import { transact } from '../../db/transaction.ts';

/** At most this many outcomes are written per transaction. */
const MAX_BATCH = 500;

export class OutcomeRecorder {
  private readonly deps: Pick<DelivererDeps, 'repo' | 'clock' | 'events' | 'random'> & { attemptedBy: string };
  private readonly unwritten: {
    claim: Claim;
    outcome: Outcome;
    resolve: () => void;
    reject: (error: unknown) => void;
  }[] = [];
  private flushing: Promise<void> | null = null;

  constructor(deps: OutcomeRecorder['deps']) {
    this.deps = deps;
  }

  /** Queues the outcome for the next batch; resolves once it is committed. */
  record(claim: Claim, outcome: Outcome): Promise<void> {
    return new Promise((resolve, reject) => {
      this.unwritten.push({ claim, outcome, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

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
        const now = this.deps.clock.now();
        await this.write(batch.map((b) => settle(b.claim, b.outcome, now, this.deps.attemptedBy, this.deps.random)));
        for (const item of batch) item.resolve();
      } catch (error) {
        for (const item of batch) item.reject(error);
      }
    }
  }

  private async write(items: Settled[]): Promise<void> {
    const { repo } = this.deps;
    await transact(repo.db, async (tx) => {
      const changes = items.map((i) => i.changes);
      const written = await repo.finishAttempts(tx, changes);
      const held = items.filter((i) => written.has(i.delivery.id));
      const attempts = items.map((i) => i.attempt);
      await repo.insertAttempts(tx, attempts);
      // Endpoint state last and in id order: concurrent batches lock endpoints in one order, and
      // the webhook.disabled emits (which serialise the outbox) come after every other write.
      const byWebhook = new Map<string, Settled>();
      for (const item of held) {
        const seen = byWebhook.get(item.webhook.id);
        if (!seen || item.disableReason || (item.succeeded && !seen.disableReason))
          byWebhook.set(item.webhook.id, item);
      }
      const endpoints = [...byWebhook.values()].sort((a, b) => a.webhook.id.localeCompare(b.webhook.id));
      for (const item of endpoints) {
        if (item.disableReason) continue;
        if (item.succeeded && item.webhook.failing_since)
          await repo.updateWebhook(tx, item.webhook.id, { failing_since: null });
        if (!item.succeeded && !item.webhook.failing_since) await repo.markFailing(tx, item.webhook.id, item.now);
      }
      for (const item of endpoints) {
        // The first to disable an endpoint (concurrent failures race on enabled = 1) reports it.
        if (!item.disableReason || !(await repo.disable(tx, item.webhook.id, item.disableReason, item.now))) continue;
        // An operator endpoint has no organization's stream to report to: its disabled_reason says it.
        const organizationId = item.webhook.organization_id;
        if (organizationId === null) continue;
        const disabled = { ...item.webhook, enabled: 0, disabled_reason: item.disableReason, updated_at: item.now };
        await this.deps.events.emit(tx, { organizationId, type: 'webhook.disabled', data: webhookView(disabled) });
      }
    });
  }
}
