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

  /** Resolves on the next notify for `cellId`, after `ms`, or when `signal` aborts. */
  wait(cellId: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.emitter.off(cellId, done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.emitter.once(cellId, done);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
