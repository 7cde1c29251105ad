// The checkpointer thread (see sqlite-checkpointer.ts): its own connection to the database file
// copies committed WAL frames into the database, passively, so it never blocks the writer.
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

const { path, idleMs } = workerData as { path: string; idleMs: number };
const database = new DatabaseSync(path);
database.exec('PRAGMA busy_timeout = 1000');
const checkpoint = database.prepare('PRAGMA wal_checkpoint(PASSIVE)');

let timer: NodeJS.Timeout | undefined;
function run(): void {
  let behind = false;
  try {
    const row = checkpoint.get() as { busy: number; log: number; checkpointed: number } | undefined;
    // Frames were committed while this pass copied: go again at once, so the WAL catches up and
    // the writer can start it over from the beginning.
    behind = row !== undefined && row.busy === 0 && row.log > 0 && row.checkpointed < row.log;
  } catch {
    // Locked or closing: the next pass tries again.
  }
  timer = setTimeout(run, behind ? 0 : idleMs);
}
run();

parentPort?.on('message', (message) => {
  if (message !== 'stop') return;
  clearTimeout(timer);
  database.close();
  parentPort?.close();
});
