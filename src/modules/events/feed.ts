// One shared reader per process: each wake reads the new outbox rows once, in seq order, and hands
// each event to the subscribers of its organization. 2,000 stream clients cost one query per batch,
// not one per client.
import type { EventRow } from './repository.ts';
import { StreamEvent } from './envelope.ts';

export interface FeedSubscriber {
  readonly organizationId: string;
  /** Every committed event of the organization after the subscription point, in seq order. Must not throw. */
  deliver(event: StreamEvent): void;
}

export interface FeedSource {
  latestSeq(): Promise<number>;
  readAfter(seq: number, limit: number): Promise<EventRow[]>;
}

const BATCH = 500;

/**
 * A subscriber that replays its history before it goes live (the WebSocket stream, the console's
 * live pages). It subscribes first, then replays (after, join point]; what the feed delivers
 * meanwhile waits in a bounded queue, and everything at or below the last seq sent is dropped, so
 * replay and feed overlap with no gap and no duplicate.
 */
export abstract class ReplayingSubscriber implements FeedSubscriber {
  readonly organizationId: string;
  protected lastSeq = 0;
  private state: 'replaying' | 'live' | 'closed' = 'replaying';
  private readonly queued: StreamEvent[] = [];
  private readonly maxQueued: number;
  /** Stops the feed's deliveries; called as soon as the subscriber closes. */
  private readonly detach: () => void;

  constructor(organizationId: string, maxQueued: number, detach: () => void) {
    this.organizationId = organizationId;
    this.maxQueued = maxQueued;
    this.detach = detach;
  }

  /** Whether the subscriber passes the event on at all. */
  protected abstract wants(event: StreamEvent): boolean;
  /** Passes a live event on (or drops a client that stopped reading). */
  protected abstract sendLive(event: StreamEvent): void;
  /** More events came during the replay than the queue holds. */
  protected abstract overflow(): void;

  /** Set right after subscribing (before any await): nothing at or below `seq` will be sent. */
  startAfter(seq: number): void {
    this.lastSeq = seq;
  }

  deliver(event: StreamEvent): void {
    if (this.state === 'closed' || event.seq <= this.lastSeq || !this.wants(event)) return;
    if (this.state === 'live') return this.sendLive(event);
    if (this.queued.length >= this.maxQueued) return this.overflow();
    this.queued.push(event);
  }

  /** The history up to `upTo` is out: `ready` tells the client, then what the feed delivered meanwhile. */
  protected goLive(upTo: number, ready: () => void): void {
    if (this.state === 'closed') return;
    this.lastSeq = Math.max(this.lastSeq, upTo);
    ready();
    this.state = 'live';
    for (const event of this.queued.splice(0)) this.deliver(event);
  }

  /** Over (closed by either side): no more deliveries. */
  closed(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.queued.length = 0;
    this.detach();
  }

  get isClosed(): boolean {
    return this.state === 'closed';
  }
}

export class EventFeed {
  private readonly source: FeedSource;
  private readonly onError: (error: unknown) => void;
  private readonly byOrganization = new Map<string, Set<FeedSubscriber>>();
  /** Highest seq handed to subscribers; every event above it is still to come. */
  private cursor = 0;
  private started: Promise<void> | null = null;
  private reading = false;
  private wokenWhileReading = false;
  private stopped = false;
  /** Woken with no subscriber, so nothing was read: the cursor may be behind the outbox's end. */
  private skipped = false;

  constructor(source: FeedSource, onError: (error: unknown) => void) {
    this.source = source;
    this.onError = onError;
  }

  /**
   * Starts at the current end of the outbox (history is the subscriber's own replay). A failed
   * start (database unreachable) is forgotten, so the next start() — the next stream client's —
   * tries again instead of every later read failing on the same rejected promise. After wakes
   * that read nothing (no subscriber), it moves the cursor to the end again: a first subscriber
   * joins there rather than at a stale cursor, whose catch-up read would be unbounded.
   */
  start(): Promise<void> {
    if (this.started && this.skipped && this.byOrganization.size === 0) return this.skipAhead(this.started);
    if (!this.started) {
      const started = this.source.latestSeq().then((seq) => {
        this.cursor = Math.max(this.cursor, seq);
      });
      this.started = started;
      started.catch(() => {
        if (this.started === started) this.started = null;
      });
    }
    return this.started;
  }

  stop(): void {
    this.stopped = true;
  }

  private async skipAhead(started: Promise<void>): Promise<void> {
    await started;
    const seq = await this.source.latestSeq();
    // A subscriber that came meanwhile is delivered every event above the cursor: leave it.
    if (this.byOrganization.size > 0) return;
    this.cursor = Math.max(this.cursor, seq);
    this.skipped = false;
  }

  /**
   * Registers a subscriber and returns the seq it joins at: events above it will be delivered;
   * events up to it are history the subscriber reads itself. Synchronous, so nothing slips between.
   */
  subscribe(subscriber: FeedSubscriber): number {
    if (!this.started) throw new Error('EventFeed.subscribe() before start()');
    let set = this.byOrganization.get(subscriber.organizationId);
    if (!set) this.byOrganization.set(subscriber.organizationId, (set = new Set()));
    set.add(subscriber);
    // Events committed since the cursor's last move woke no read: read them now.
    if (this.skipped) queueMicrotask(() => this.wake());
    return this.cursor;
  }

  unsubscribe(subscriber: FeedSubscriber): void {
    const set = this.byOrganization.get(subscriber.organizationId);
    if (!set) return;
    set.delete(subscriber);
    if (set.size === 0) this.byOrganization.delete(subscriber.organizationId);
  }

  subscriberCount(): number {
    let count = 0;
    for (const set of this.byOrganization.values()) count += set.size;
    return count;
  }

  /** New rows may have committed: read them (coalesced while a read is running), if anyone listens. */
  wake(): void {
    if (this.stopped || !this.started) return;
    if (this.byOrganization.size === 0) {
      this.skipped = true;
      return;
    }
    this.skipped = false;
    if (this.reading) {
      this.wokenWhileReading = true;
      return;
    }
    this.reading = true;
    void this.readAll().finally(() => {
      this.reading = false;
      if (this.wokenWhileReading) {
        this.wokenWhileReading = false;
        this.wake();
      }
    });
  }

  private async readAll(): Promise<void> {
    try {
      await this.started;
      for (;;) {
        const rows = await this.source.readAfter(this.cursor, BATCH);
        for (const row of rows) this.dispatch(row);
        if (rows.length < BATCH || this.stopped) return;
      }
    } catch (error) {
      // The cursor only moved past dispatched rows; the next wake or poll resumes from there.
      this.onError(error);
    }
  }

  private dispatch(row: EventRow): void {
    if (row.seq <= this.cursor) return;
    this.cursor = row.seq;
    const subscribers = this.byOrganization.get(row.organization_id);
    if (!subscribers) return;
    const event = new StreamEvent(row);
    for (const subscriber of subscribers) {
      try {
        subscriber.deliver(event);
      } catch (error) {
        this.onError(error);
      }
    }
  }
}
