// The webhook delivery loop. Every process runs one; they share the queue in the database, and a
// claim (UPDATE ... FOR UPDATE SKIP LOCKED on PostgreSQL) gives each attempt to exactly one of
// them. Up to `concurrency` attempts are in flight at once, so one slow receiver never holds up
// the others. The webhooks' 'queued' signal starts a drain at once: after the commit of an
// event whose fan-out wrote deliveries (in this process, which claims them itself), a manual
// retry or a re-enable. Events without a subscribed endpoint wake nothing (a claim is a write:
// two per message on the send path). A short poll catches retries falling due and deliveries
// written by other processes when their own loop is full.
import type { FastifyBaseLogger } from 'fastify';
import type { WebhookDeliverer } from '../modules/webhooks/delivery.ts';
import type { WebhooksService } from '../modules/webhooks/service.ts';
import type { Loop } from './loop.ts';

/** How often the deliveries log is pruned (every process does it; the deletes are idempotent). */
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

export interface WorkerOptions {
  pollMs?: number;
  concurrency?: number;
  batchSize?: number;
}

export class WebhookDeliveryWorker implements Loop {
  private readonly deliverer: WebhookDeliverer;
  private readonly webhooks: WebhooksService;
  private readonly log: FastifyBaseLogger;
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly batchSize: number;
  private readonly refillAt: number;
  private readonly inFlight = new Set<Promise<void>>();
  private draining: Promise<void> | null = null;
  private drainAgain = false;
  private saturated = false;
  private running = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  private readonly onSignal = () => this.wake();

  constructor(
    deps: {
      deliverer: WebhookDeliverer;
      webhooks: WebhooksService;
      log: FastifyBaseLogger;
    } & WorkerOptions,
  ) {
    this.deliverer = deps.deliverer;
    this.webhooks = deps.webhooks;
    this.log = deps.log;
    this.pollMs = deps.pollMs ?? 250;
    this.concurrency = deps.concurrency ?? 256;
    this.batchSize = deps.batchSize ?? 100;
    this.refillAt = Math.max(1, Math.min(this.batchSize, Math.floor(this.concurrency / 4)));
  }

  start(): void {
    this.running = true;
    this.webhooks.signals.on('queued', this.onSignal);
    this.pollTimer = setInterval(() => this.wake(), this.pollMs);
    this.pollTimer.unref();
    this.pruneTimer = setInterval(() => {
      this.webhooks
        .prune()
        .catch((error: unknown) =>
          this.log.error({ err: error, worker: 'webhook-delivery' }, 'pruning webhook deliveries failed'),
        );
    }, PRUNE_INTERVAL_MS);
    this.pruneTimer.unref();
    this.wake();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.webhooks.signals.off('queued', this.onSignal);
    clearInterval(this.pollTimer);
    clearInterval(this.pruneTimer);
    await this.draining;
    await Promise.all(this.inFlight);
  }

  /**
   * Claims and attempts everything due now, waits for those attempts, and repeats until nothing
   * is due. Tests drive delivery with this and a manual clock; returns the attempts made.
   */
  async deliverDue(): Promise<number> {
    let total = 0;
    for (;;) {
      const started = await this.fill();
      await Promise.all(this.inFlight);
      if (started === 0) return total;
      total += started;
    }
  }

  /** Starts a drain, or asks the running one to go round once more. */
  private wake(): void {
    if (!this.running) return;
    if (this.draining) {
      this.drainAgain = true;
      return;
    }
    this.draining = (async () => {
      do {
        this.drainAgain = false;
        await this.fill().catch((error: unknown) =>
          this.log.error({ err: error, worker: 'webhook-delivery' }, 'claiming webhook deliveries failed'),
        );
      } while (this.drainAgain && this.running);
    })().finally(() => {
      this.draining = null;
    });
  }

  /** Claims due deliveries into the free attempt slots; returns how many it started. */
  private async fill(): Promise<number> {
    let started = 0;
    for (;;) {
      const free = this.concurrency - this.inFlight.size;
      if (free <= 0) {
        this.saturated = true;
        return started;
      }
      const want = Math.min(free, this.batchSize);
      const { claims, claimed } = await this.deliverer.claim(want);
      for (const claim of claims) {
        const attempt: Promise<void> = this.deliverer
          .attempt(claim)
          .catch((error: unknown) =>
            this.log.error({ err: error, delivery: claim.delivery.id }, 'recording a webhook attempt failed'),
          )
          .finally(() => {
            this.inFlight.delete(attempt);
            // Work may have been left waiting while every slot was busy: claim it once a good
            // share of the slots is free, not one row per finished attempt.
            if (this.saturated && this.concurrency - this.inFlight.size >= this.refillAt) {
              this.saturated = false;
              this.wake();
            }
          });
        this.inFlight.add(attempt);
      }
      started += claims.length;
      if (claimed < want) return started;
    }
  }
}
