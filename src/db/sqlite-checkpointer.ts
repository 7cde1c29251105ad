// WAL checkpoints on a thread of their own. Left to the writing connection, every few thousand
// commits one commit also copies the whole WAL into the database file: measured at about 35 ms
// on the event loop each time, as much CPU as all other commits together, and the p99 of every
// request that waits behind it. A second connection on a worker thread does that work beside
// the event loop (WAL mode lets a passive checkpoint run alongside the writer and readers).
//
// The thread starts only once the WAL has grown past START_BYTES (a stat of the -wal file every
// WATCH_MS): a thread costs about 10 MB of memory and 30 ms of CPU to start, which a process that
// writes little (an idle server, most test apps) need not pay. Until then the WAL is small and
// the writer's own autocheckpoint still bounds it. The thread runs plain JavaScript: a .ts file
// would load Node's type stripper (a WebAssembly module, about 15 MB) into it.
import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/** How long the checkpointer rests once the WAL is fully copied. */
const IDLE_MS = 50;
const WATCH_MS = 250;
const START_BYTES = 1024 * 1024;

// Its own connection to the database file copies committed WAL frames into the database,
// passively, so it never blocks the writer.
const WORKER_SOURCE = `
const { DatabaseSync } = require('node:sqlite');
const { parentPort, workerData } = require('node:worker_threads');

const { path, idleMs } = workerData;
const database = new DatabaseSync(path);
database.exec('PRAGMA busy_timeout = 1000');
const checkpoint = database.prepare('PRAGMA wal_checkpoint(PASSIVE)');

let timer;
function run() {
  let behind = false;
  try {
    const row = checkpoint.get();
    // Frames were committed while this pass copied: go again at once, so the WAL catches up and
    // the writer can start it over from the beginning.
    behind = row !== undefined && row.busy === 0 && row.log > 0 && row.checkpointed < row.log;
  } catch {
    // Locked or closing: the next pass tries again.
  }
  timer = setTimeout(run, behind ? 0 : idleMs);
}
run();

parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearTimeout(timer);
  database.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Resolves once the thread (if it started) has closed its connection and ended. */
  stop(): Promise<void>;
}

export function startCheckpointer(path: string): Checkpointer {
  let worker: Worker | null = null;
  const watch = setInterval(() => {
    let size: number;
    try {
      size = statSync(`${path}-wal`).size;
    } catch {
      return;
    }
    if (size < START_BYTES) return;
    clearInterval(watch);
    worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { path, idleMs: IDLE_MS },
      // It holds one connection and one statement.
      resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 },
    });
    // It never keeps the process alive; if it fails, the writer's own autocheckpoint still bounds the WAL.
    worker.unref();
    worker.on('error', () => {});
  }, WATCH_MS);
  watch.unref();
  return {
    // Closing the last connection removes the -wal and -shm files: a caller that removes the
    // database's directory next (the demo, tests) must not race the thread's close.
    async stop() {
      clearInterval(watch);
      if (!worker) return;
      const exited = new Promise<void>((resolve) => worker?.once('exit', () => resolve()));
      worker.postMessage('stop');
      await exited;
    },
  };
}
