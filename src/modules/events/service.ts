// The outbox: every module records its events here, inside the transaction of the change, with
// emit(tx, {organizationId, type, data}). Consumers read committed rows in `seq` order.
//
// "No gaps, no duplicates": on PostgreSQL a sequence's values can commit out of order (10 after
// 11: a reader at 11 would skip 10 for ever), so emit() takes a transaction-level advisory lock
// held until commit, and seq order IS commit order. Event-emitting transactions then commit one at
// a time, and the outbox write must be the LAST write of its transaction (waiting for a row lock
// while holding it could deadlock): emit() queues it to the end (src/db/transaction.ts). On SQLite
// there is one writer, so seq order is commit order already.
//
// The `emitted` hooks run inside every emit, in its transaction (the webhook fan-out's delivery
// rows). readAfter(seq, limit) pages the whole outbox in order; `signals` emits 'appended' whenever
// new rows may have committed (an emit here, a NOTIFY from any process, a slow safety-net poll), so
// no consumer needs a tight poll of its own. Events are kept 7 days.
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import type { Executor } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { atCommit, transact } from '../../db/transaction.ts';
import { newId } from '../../lib/ids.ts';
import { Listeners } from '../../lib/ports.ts';
import { envelopeOf } from './envelope.ts';
import { EventFeed } from './feed.ts';
import { PgListener, type ListenerLog } from '../../db/pg-listener.ts';
import { EVENTS_CHANNEL, type EventRow, type EventsRepository } from './repository.ts';
import type { EventEnvelope, EventType } from './types.ts';

export const RETENTION_MS = 7 * 24 * 3600 * 1000;
const POLL_MS = 2_000;

export interface StoredEvent {
  seq: number;
  envelope: EventEnvelope;
}

export interface EventsLog extends ListenerLog {
  error(details: object, message: string): void;
}

/** Runs inside emit(), in the emitting transaction, after the event row is written. */
export type EmitHook = (tx: Executor, envelope: EventEnvelope) => Promise<void>;

export class EventsService {
  private readonly repo: EventsRepository;
  private readonly clock: Clock;
  private readonly log: EventsLog;
  private readonly listener: PgListener | null;
  private readonly pollMs: number;
  private pollTimer: NodeJS.Timeout | undefined;
  /** Wired by the composition root: the webhook fan-out writes its deliveries in the event's transaction. */
  readonly ports = { emitted: new Listeners<EmitHook>('events', 'emitted') };
  /** The shared reader behind the stream. */
  readonly feed: EventFeed;
  /** Emits 'appended' whenever new events may have committed (see the header comment). */
  readonly signals = new EventEmitter().setMaxListeners(0);

  constructor(deps: {
    repo: EventsRepository;
    clock: Clock;
    log: EventsLog;
    pgClient?: pg.ClientConfig | null;
    pollMs?: number;
  }) {
    ({ repo: this.repo, clock: this.clock, log: this.log } = deps);
    this.pollMs = deps.pollMs ?? POLL_MS;
    this.feed = new EventFeed(this.repo, (error) => this.log.error({ err: error }, 'event feed read failed'));
    this.listener = deps.pgClient
      ? new PgListener({ config: deps.pgClient, channel: EVENTS_CHANNEL, onNotify: () => this.wake(), log: this.log })
      : null;
  }

  /**
   * Records an event in the caller's transaction (opened with transact(), or a transaction of its
   * own); returns its envelope. The row and the emit hooks are written at the end of the
   * transaction (atCommit), after the caller's own writes: on PostgreSQL the outbox lock is then
   * held only from the last writes to the commit, whatever order the caller emits in.
   */
  async emit(
    ex: Executor,
    event: { organizationId: string; type: EventType; data: Record<string, unknown> },
  ): Promise<EventEnvelope> {
    if (!ex.isTransaction) return transact(this.repo.db, (tx) => this.emit(tx, event));
    const now = this.clock.now();
    const envelope: EventEnvelope = {
      id: newId('evt', this.clock, now),
      type: event.type,
      created_at: now.toISOString(),
      organization_id: event.organizationId,
      data: event.data,
    };
    atCommit(ex, async () => {
      await this.repo.insert(ex, { ...envelope, data: JSON.stringify(envelope.data) });
      for (const hook of this.ports.emitted.all) await hook(ex, envelope);
      // PostgreSQL wakes every process through NOTIFY at commit. On SQLite the single connection
      // is held by this transaction, so a read queued now runs right after the commit.
      if (!this.listener) setImmediate(() => this.wake());
    });
    return envelope;
  }

  /** Committed events after `seq` (0 for the oldest retained), in commit order, every organization. */
  async readAfter(seq: number, limit: number): Promise<StoredEvent[]> {
    const rows = await this.repo.readAfter(seq, limit);
    return rows.map((row) => ({ seq: row.seq, envelope: envelopeOf(row) }));
  }

  latestSeq(): Promise<number> {
    return this.repo.latestSeq();
  }

  /** A retained event of this organization, or null (unknown, pruned or another organization's). */
  async find(organizationId: string, id: string): Promise<EventRow | null> {
    const row = await this.repo.findById(id);
    return row && row.organization_id === organizationId ? row : null;
  }

  /** One organization's rows with after < seq <= upTo, of `types` (all when null), in order. */
  readOrganizationRange(...args: Parameters<EventsRepository['readOrganizationRange']>): Promise<EventRow[]> {
    return this.repo.readOrganizationRange(...args);
  }

  /** Deletes events older than the retention period; how many. */
  async prune(batch = 5_000): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - RETENTION_MS).toISOString();
    let total = 0;
    for (;;) {
      const deleted = await this.repo.deleteCreatedBefore(cutoff, batch);
      total += deleted;
      if (deleted < batch) return total;
    }
  }

  /** Starts the shared reader, the LISTEN connection (PostgreSQL) and the safety-net poll. */
  async start(): Promise<void> {
    await this.feed.start();
    await this.listener?.start();
    this.pollTimer = setInterval(() => this.wake(), this.pollMs);
    this.pollTimer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.pollTimer);
    this.feed.stop();
    await this.listener?.stop();
  }

  /** The LISTEN connection's server process id (PostgreSQL, while connected), else null. */
  get listenerBackendPid(): number | null {
    return this.listener?.backendPid ?? null;
  }

  private wake(): void {
    this.feed.wake();
    this.signals.emit('appended');
  }
}
