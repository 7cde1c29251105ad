// Wake-ups for devices waiting on a cell: a send for a cell wakes that cell's long-polls and SSE
// streams at once. On PostgreSQL a publisher (remote-wakeups.ts) carries the wake-up to the other
// processes too; pollers also re-check on a short interval, which finds anything missed.
import { EventEmitter } from 'node:events';
import type { RawBuilder } from 'kysely';
import type { Executor } from '../../db/schema.ts';

/** Carries wake-ups to the other processes (remote-wakeups.ts, PostgreSQL). */
export interface WakeupPublisher {
  /** After a commit: published at once, not awaited. */
  now(cellId: string): void;
  /** Inside a transaction: delivered when it commits, and not at all when it rolls back. */
  within(ex: Executor, cellIds: readonly string[]): Promise<void>;
  /** As within, as a column of another statement of the transaction (its value means nothing). */
  column(cellIds: readonly string[]): PublishingColumn;
}

/**
 * A column that publishes wake-ups: its SQL from `build`, with one value, `payloads`, so that a
 * statement carrying it is built once and then run with fresh payloads (db/prepared.ts).
 */
export interface PublishingColumn {
  build: (payloads: readonly string[]) => RawBuilder<unknown>;
  payloads: readonly string[];
}

export class CellWakeups {
  private readonly emitter = new EventEmitter();
  private publisher: WakeupPublisher | null = null;

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  /** Carries every wake-up to the other processes as well (set once, on PostgreSQL). */
  publishTo(publisher: WakeupPublisher): void {
    this.publisher = publisher;
  }

  /** After a commit that queued messages on the cell: its waiters here and in every other process. */
  notify(cellId: string): void {
    this.emitter.emit(cellId);
    this.publisher?.now(cellId);
  }

  /**
   * In the transaction that queues messages on these cells: the other processes hear it at its
   * commit (a send's, so no statement follows the commit); this process's waiters are woken by
   * `here` after the commit.
   */
  async publishWithin(ex: Executor, cellIds: readonly string[]): Promise<void> {
    if (cellIds.length > 0) await this.publisher?.within(ex, cellIds);
  }

  /**
   * As publishWithin, carried by a statement the transaction runs anyway (a column to select);
   * null when there is nothing to publish or no other process to tell.
   */
  publishingColumn(cellIds: readonly string[]): PublishingColumn | null {
    return cellIds.length > 0 && this.publisher ? this.publisher.column(cellIds) : null;
  }

  /** This process's waiters only: after a commit that published within, or a wake-up another process published. */
  here(cellId: string): void {
    this.emitter.emit(cellId);
  }

  /**
   * Resolves on the next notify for `cellId` (or any of them: a phone's two lines) (true), after
   * `ms`, or when `signal` aborts (false).
   */
  wait(cellId: string | readonly string[], ms: number, signal: AbortSignal): Promise<boolean> {
    const cellIds = typeof cellId === 'string' ? [cellId] : cellId;
    return new Promise((resolve) => {
      const finish = (notified: boolean) => {
        clearTimeout(timer);
        for (const id of cellIds) this.emitter.off(id, notify);
        signal.removeEventListener('abort', stop);
        resolve(notified);
      };
      const notify = () => finish(true);
      const stop = () => finish(false);
      const timer = setTimeout(stop, ms);
      for (const id of cellIds) this.emitter.once(id, notify);
      signal.addEventListener('abort', stop, { once: true });
    });
  }
}
