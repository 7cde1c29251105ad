// Background loops a module hands to the composition root from its build(): app.ts starts them
// when the app is ready (unless tests drive the ticks themselves) and stops them at close.

/** A loop with its own schedule (e.g. the webhook deliverer, woken by signals). */
export interface Loop {
  start(): void;
  stop(): Promise<void>;
}

/** Work run every `intervalMs` by the generic loop (src/workers/loop.ts), never overlapping itself. */
export interface Periodic {
  name: string;
  intervalMs: number;
  tick(): Promise<unknown>;
}

export type Background = Loop | Periodic;
