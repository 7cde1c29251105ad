// Transactions with work that must run last. transact() opens a transaction in which atCommit()
// queues work to run after the caller's own writes, right before the commit: the event outbox uses
// it so that, on PostgreSQL, the outbox lock is taken by the last writes of every transaction
// (taking it earlier and then waiting on a row lock could deadlock; see events/service.ts).
// afterCommit() queues work for once the commit succeeded (a wake-up of a worker that reads what
// the transaction wrote: run before the commit, on PostgreSQL it would find nothing).
import type { Kysely, Transaction } from 'kysely';
import type { DB, Executor } from './schema.ts';

interface Queued {
  last: (() => Promise<void>)[];
  committed: (() => void)[];
}

const queues = new WeakMap<Executor, Queued>();

export async function transact<T>(db: Kysely<DB>, work: (tx: Transaction<DB>) => Promise<T>): Promise<T> {
  const queued: Queued = { last: [], committed: [] };
  const result = await db.transaction().execute(async (tx) => {
    queues.set(tx, queued);
    const result = await work(tx);
    // Queued work may queue more (an event hook emitting): run until none is left.
    for (let next = queued.last.shift(); next; next = queued.last.shift()) await next();
    return result;
  });
  for (const done of queued.committed) done();
  return result;
}

function queuesOf(tx: Executor, caller: string): Queued {
  const queued = queues.get(tx);
  if (!queued) throw new Error(`${caller} needs a transaction opened with transact() (src/db/transaction.ts)`);
  return queued;
}

/** Queues `work` to run at the end of `tx`, which must come from transact(). */
export function atCommit(tx: Executor, work: () => Promise<void>): void {
  queuesOf(tx, 'atCommit()').last.push(work);
}

/**
 * Runs `done` once what `ex` wrote is committed: after the commit of a transaction from
 * transact() (never, if it rolls back), at once outside a transaction. Must not throw.
 */
export function afterCommit(ex: Executor, done: () => void): void {
  if (!ex.isTransaction) done();
  else queuesOf(ex, 'afterCommit()').committed.push(done);
}
