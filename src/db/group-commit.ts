// Group commit: units submitted while the previous batch is being written (or in the same turn of
// the event loop) are written together, by one call of `write` in one transaction: multi-row
// statements and one commit for the batch. On SQLite that is one WAL append instead of one per
// unit; on PostgreSQL, a few round trips per batch instead of a few per unit. A unit the write
// turns down (Refused) rejects alone inside a committed batch. Failures are rare (a lost
// idempotency race, a deadlock with another process), so the batch is optimistic: when it fails,
// nothing of it was kept and each unit is written again alone, so a failing unit rejects alone
// and the others commit. One batch at a time per process.
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
  private queue: Job<Unit, Result>[] = [];
  private scheduled = false;

  constructor(db: Kysely<DB>, write: BatchWrite<Unit, Result>) {
    this.db = db;
    this.write = write;
  }

  run(unit: Unit): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ unit, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async alone(unit: Unit): Promise<Result> {
    const [result] = await this.db.transaction().execute((tx) => this.write(tx, [unit]));
    if (result instanceof Refused) throw result.error;
    return result;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      await this.commit(this.queue.splice(0, MAX_BATCH));
    }
    this.scheduled = false;
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
