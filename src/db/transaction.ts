// Transactions with work that must run last. transact() opens a transaction in which atCommit()
// queues work to run after the caller's own writes, right before the commit: the event outbox uses
// it so that, on PostgreSQL, the outbox lock is taken by the last writes of every transaction
// (taking it earlier and then waiting on a row lock could deadlock; see events/service.ts).
import type { Kysely, Transaction } from 'kysely';
import type { DB, Executor } from './schema.ts';

const lastWork = new WeakMap<Executor, (() => Promise<void>)[]>();

export function transact<T>(db: Kysely<DB>, work: (tx: Transaction<DB>) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (tx) => {
    const queued: (() => Promise<void>)[] = [];
    lastWork.set(tx, queued);
    const result = await work(tx);
    // Queued work may queue more (an event hook emitting): run until none is left.
    for (let next = queued.shift(); next; next = queued.shift()) await next();
    return result;
  });
}

/** Queues `work` to run at the end of `tx`, which must come from transact(). */
export function atCommit(tx: Executor, work: () => Promise<void>): void {
  const queued = lastWork.get(tx);
  if (!queued) throw new Error('atCommit() needs a transaction opened with transact() (src/db/transaction.ts)');
  queued.push(work);
}

/** Whether `tx` was opened with transact(). */
export function isTransacted(tx: Executor): boolean {
  return lastWork.has(tx);
}
