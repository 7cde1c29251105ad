// Group commit: units submitted while the previous batch is being written (or in the same turn of
// the event loop) are written together, by one call of `write` in one transaction: multi-row
// statements and one commit for the batch. On SQLite that is one WAL append instead of one per
// unit; on PostgreSQL, a few round trips per batch instead of a few per unit. A unit the write
// turns down (Refused) rejects alone inside a committed batch. Failures are rare (a lost
// idempotency race, a deadlock with another process), so the batch is optimistic: when it fails,
// nothing of it was kept and each unit is written again alone, so a failing unit rejects alone
// and the others commit. `concurrency` batches at a time per process: one on SQLite (one writer);
// on PostgreSQL a second batch runs its reads while the first waits for its commit (batches that
// touch the same rows then wait on each other's row locks, as separate requests would).
import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.ts';

/** A unit the write turned down without failing the batch: its caller gets `error`, the others commit. */
export class Refused {
  readonly error: unknown;
  constructor(error: unknown) {
    this.error = error;
  }
}

/** Writes `units` in `tx`; answers one result (or Refused) per unit, in order. Must be safe to run again. */
export type BatchWrite<Unit, Result> = (tx: Transaction<DB>, units: Unit[]) => Promise<(Result | Refused)[]>;

interface Job<Unit, Result> {
  unit: Unit;
  resolve(value: Result): void;
  reject(error: unknown): void;
}

/** Largest number of units in one transaction (bounds how long a batch holds the writer). */
export const MAX_BATCH = 64;

export class GroupCommit<Unit, Result> {
  private readonly db: Kysely<DB>;
  private readonly write: BatchWrite<Unit, Result>;
  private readonly concurrency: number;
  private queue: Job<Unit, Result>[] = [];
  private scheduled = false;
  private running = 0;

  constructor(db: Kysely<DB>, write: BatchWrite<Unit, Result>, options: { concurrency?: number } = {}) {
    this.db = db;
    this.write = write;
    this.concurrency = options.concurrency ?? 1;
  }

  run(unit: Unit): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ unit, resolve, reject });
      // Units of this turn of the event loop join one batch, started after it.
      if (!this.scheduled && this.running < this.concurrency) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.start();
        });
      }
    });
  }

  private start(): void {
    while (this.queue.length > 0 && this.running < this.concurrency) {
      this.running += 1;
      void this.commit(this.queue.splice(0, MAX_BATCH)).finally(() => {
        this.running -= 1;
        this.start();
      });
    }
  }

  private async alone(unit: Unit): Promise<Result> {
    const [result] = await this.db.transaction().execute((tx) => this.write(tx, [unit]));
    if (result instanceof Refused) throw result.error;
    return result;
  }

  private async commit(batch: Job<Unit, Result>[]): Promise<void> {
    if (batch.length > 1) {
      try {
        const results = await this.db.transaction().execute((tx) =>
          this.write(
            tx,
            batch.map((job) => job.unit),
          ),
        );
        batch.forEach((job, i) => {
          const result = results[i];
          if (result instanceof Refused) job.reject(result.error);
          else job.resolve(result);
        });
        return;
      } catch {
        // Some unit failed (its error is for it alone) or the commit did: each unit goes alone.
      }
    }
    for (const job of batch) await this.alone(job.unit).then(job.resolve, job.reject);
  }
}
