// Wake-ups for devices waiting on a cell: a send for a cell wakes that cell's long-polls and SSE
// streams at once. On PostgreSQL a publisher (remote-wakeups.ts) carries the wake-up to the other
// processes too; pollers also re-check on a short interval, which finds anything missed.
import { EventEmitter } from 'node:events';

export class CellWakeups {
  private readonly emitter = new EventEmitter();
  private publish: ((cellId: string) => void) | null = null;

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  /** Carries every notify to the other processes as well (set once, on PostgreSQL). */
  publishTo(publish: (cellId: string) => void): void {
    this.publish = publish;
  }

  notify(cellId: string): void {
    this.emitter.emit(cellId);
    this.publish?.(cellId);
  }

  /** A wake-up another process published: this process's waiters only. */
  heard(cellId: string): void {
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
