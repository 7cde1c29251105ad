// WAL checkpoints on a thread of their own. Left to the writing connection, every few thousand
// commits one commit also copies the whole WAL into the database file: measured at about 35 ms
// on the event loop each time, as much CPU as all other commits together, and the p99 of every
// request that waits behind it. A second connection on a worker thread does that work beside
// the event loop (WAL mode lets a passive checkpoint run alongside the writer and readers).
import { Worker } from 'node:worker_threads';

/** How long the checkpointer rests once the WAL is fully copied. */
const IDLE_MS = 50;

export interface Checkpointer {
  stop(): void;
}

export function startCheckpointer(path: string): Checkpointer {
  const worker = new Worker(new URL('./sqlite-checkpointer-worker.ts', import.meta.url), { workerData: { path, idleMs: IDLE_MS } });
  // It never keeps the process alive; if it fails, the writer's own autocheckpoint still bounds the WAL.
  worker.unref();
  worker.on('error', () => {});
  return {
    stop: () => worker.postMessage('stop'),
  };
}
