// Cross-process wake-ups on PostgreSQL: a send's wake-up (wakeups.ts) is published with NOTIFY on
// one channel, and every process's LISTEN connection (db/pg-listener.ts) wakes its own waiters on
// that cell, so an SSE stream or long-poll held by another process hears the send at once. A
// send's NOTIFY runs in its transaction (delivered at the commit: nothing runs after it), as a
// column of the batch's pace read when it has one, else as one statement per group-commit batch; the other wake-ups (scheduled sends, requeued leases) publish
// after their commit, not awaited. A lost one is found by the re-check. A NOTIFY makes its
// transaction take a transaction id and write a commit record: once per batch rather than once per send.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type pg from 'pg';
import type { DB } from '../../db/schema.ts';
import { PgListener, type ListenerLog } from '../../db/pg-listener.ts';
import type { CellWakeups } from './wakeups.ts';

export const WAKEUPS_CHANNEL = 'cellgate_cell_wakeups';

/** NOTIFY each of `payloads` as a column (its value, a count, means nothing). */
const notifyColumn = (payloads: readonly string[]) =>
  sql`(select count(*) from (select pg_notify(${WAKEUPS_CHANNEL}, p) from unnest(${payloads}::text[]) as p) as woken)`;

export function remoteWakeups(deps: {
  wakeups: CellWakeups;
  db: Kysely<DB>;
  pgClient: pg.ClientConfig;
  log: ListenerLog;
}): PgListener {
  // Each process ignores its own notifications: its waiters were woken when it published.
  const origin = randomUUID();
  const payload = (cellId: string) => `${origin} ${cellId}`;
  deps.wakeups.publishTo({
    now(cellId) {
      sql`select pg_notify(${WAKEUPS_CHANNEL}, ${payload(cellId)})`
        .execute(deps.db)
        .catch((error: unknown) => deps.log.warn({ err: error, cell_id: cellId }, 'cell wake-up NOTIFY failed'));
    },
    async within(ex, cellIds) {
      await sql`select pg_notify(${WAKEUPS_CHANNEL}, p) from unnest(${cellIds.map(payload)}::text[]) as p`.execute(ex);
    },
    column: (cellIds) => ({ build: notifyColumn, payloads: cellIds.map(payload) }),
  });
  return new PgListener({
    config: deps.pgClient,
    channel: WAKEUPS_CHANNEL,
    onNotify: (payload) => {
      const [from, cellId] = (payload ?? '').split(' ');
      if (cellId && from !== origin) deps.wakeups.here(cellId);
    },
    log: deps.log,
  });
}
