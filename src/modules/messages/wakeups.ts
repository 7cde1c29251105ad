// In-process wake-ups for long-polling devices: a send for a cell wakes that cell's pollers at
// once. Pollers also re-check on a short interval, which finds sends made by other processes.
import { EventEmitter } from 'node:events';

export class CellWakeups {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  notify(cellId: string): void {
    this.emitter.emit(cellId);
  }

  /** Resolves on the next notify for `cellId` (true), after `ms`, or when `signal` aborts (false). */
  wait(cellId: string, ms: number, signal: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      const finish = (notified: boolean) => {
        clearTimeout(timer);
        this.emitter.off(cellId, notify);
        signal.removeEventListener('abort', stop);
        resolve(notified);
      };
      const notify = () => finish(true);
      const stop = () => finish(false);
      const timer = setTimeout(stop, ms);
      this.emitter.once(cellId, notify);
      signal.addEventListener('abort', stop, { once: true });
    });
  }
}
