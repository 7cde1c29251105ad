// Group commit: units of work submitted in the same turn of the event loop run together in one
// transaction. Failures are rare (a lost idempotency race), so units share it without savepoints:
// when any unit fails, the whole batch rolls back and each unit runs again alone, so a failing
// unit rejects alone and the others commit. Units must therefore be safe to run twice.
// node:sqlite never yields mid-request, so the batch is gathered by waiting one setImmediate:
// requests parsed in the same I/O phase share a commit (one WAL append instead of one per
// request) for a few microseconds of added latency.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.ts';

type Work<T> = (tx: Transaction<DB>) => Promise<T>;

interface Job {
  work: Work<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** Largest number of units in one transaction (bounds how long a batch holds the writer). */
const MAX_BATCH = 64;

export class GroupCommit {
  private readonly db: Kysely<DB>;
  private queue: Job[] = [];
  private scheduled = false;

  private readonly batching: boolean;

  /**
   * `batching: false` runs each unit in a transaction of its own at once. PostgreSQL wants that:
   * its pool runs transactions side by side, and a batch would queue every unit behind one
   * connection's round trips.
   */
  constructor(db: Kysely<DB>, options: { batching: boolean }) {
    this.db = db;
    this.batching = options.batching;
  }

  run<T>(work: Work<T>): Promise<T> {
    if (!this.batching) return this.db.transaction().execute(work);
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      await this.commit(this.queue.splice(0, MAX_BATCH));
    }
    this.scheduled = false;
  }

  private async commit(batch: Job[]): Promise<void> {
    if (batch.length === 1) {
      const [job] = batch;
      await this.db.transaction().execute(job.work).then(job.resolve, job.reject);
      return;
    }
    let values: unknown[];
    try {
      values = await this.db.transaction().execute(async (tx) => {
        const results: unknown[] = [];
        for (const job of batch) results.push(await job.work(tx));
        return results;
      });
    } catch {
      // A unit failed (its error is for it alone), or the commit did: nothing of the batch was
      // kept, so each unit runs again in a transaction of its own.
      for (const job of batch) await this.db.transaction().execute(job.work).then(job.resolve, job.reject);
      return;
    }
    batch.forEach((job, i) => job.resolve(values[i]));
  }
}
