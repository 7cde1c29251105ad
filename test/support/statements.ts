// What an app runs on its database, seen through the observed dialect (src/db/observed-dialect.ts):
// the statements of one request, or a broken connection from the first commit on.
import { AsyncLocalStorage } from 'node:async_hooks';
import { CompiledQuery, type Kysely } from 'kysely';
import { isPostgres } from '../../src/db/migrations/dialect.ts';
import type { Statement } from '../../src/db/observed-dialect.ts';
import type { DB } from '../../src/db/schema.ts';
import { newId } from '../../src/lib/ids.ts';
import type { MessagesTable } from '../../src/modules/messages/tables.ts';
import type { TestApp } from '../harness.ts';

/** A statement as a lost PostgreSQL connection fails it (src/db/errors.ts: database unavailable). */
function connectionLost(): Error {
  return Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
}

export class Statements {
  /** The statements of the work being recorded: its own only (not a timer's, not another request's). */
  private readonly recorded = new AsyncLocalStorage<Statement[]>();
  private failing: 'off' | 'after-commit' | 'on' = 'off';

  /** Pass as startApp's `observe`. */
  readonly observe = (statement: Statement): void => {
    this.recorded.getStore()?.push(statement);
    if (this.failing === 'on') throw connectionLost();
    if (this.failing === 'after-commit' && /^\s*commit\b/i.test(statement.sql)) this.failing = 'on';
  };

  /** The statements `work` ran, in its own async context (and its result). */
  async during<T>(work: () => Promise<T>): Promise<{ result: T; statements: Statement[] }> {
    const recorded: Statement[] = [];
    // Awaited inside: a lazy thenable (app.inject) starts its work when awaited.
    return { result: await this.recorded.run(recorded, async () => await work()), statements: recorded };
  }

  /** Runs `work` with every statement after the first commit failing, as if the connections were killed then. */
  async failingAfterCommit<T>(work: () => Promise<T>): Promise<T> {
    this.failing = 'after-commit';
    try {
      return await work();
    } finally {
      this.failing = 'off';
    }
  }
}

// --- query plans: a hot path's statements read an index range, never the messages table ---

export const touchesMessages = (statement: Statement) =>
  /\b(from|into|update)\s+"messages"/i.test(statement.sql) && !/^\s*(begin|commit|rollback)/i.test(statement.sql);

/** The statement's plan, one line a node: SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN. */
export async function explain(db: Kysely<DB>, statement: Statement): Promise<string[]> {
  const prefix = isPostgres(db) ? 'explain ' : 'explain query plan ';
  const { rows } = await db.executeQuery<Record<string, unknown>>(
    CompiledQuery.raw(prefix + statement.sql, [...statement.parameters]),
  );
  return rows.map((row) => String(row['QUERY PLAN'] ?? row.detail));
}

/** PostgreSQL: the rows its plan's nodes on messages returned, all together (EXPLAIN ANALYZE). */
export async function rowsReadFromMessages(db: Kysely<DB>, statement: Statement): Promise<number> {
  const { rows } = await db.executeQuery<Record<string, string>>(
    CompiledQuery.raw(`explain (analyze, costs off, timing off) ${statement.sql}`, [...statement.parameters]),
  );
  return rows
    .map((row) => row['QUERY PLAN'])
    .filter((line) => / on messages\b/.test(line))
    .reduce((sum, line) => sum + Number(/actual rows=(\d+)/.exec(line)?.[1] ?? 0) * loopsOf(line), 0);
}

const loopsOf = (line: string) => Number(/loops=(\d+)/.exec(line)?.[1] ?? 1);

/**
 * A plan reading the whole messages table or a whole index of it: SQLite's SCAN (SEARCH is a
 * range of an index); PostgreSQL's Seq Scan, or an index scan without an Index Cond unless a
 * Limit right above it stops it (it walks the index in order until it has enough: rows read are
 * then checked by rowsReadFromMessages).
 */
export function scansMessages(plan: readonly string[]): boolean {
  return plan.some((line, i) => {
    if (/^SCAN messages\b/.test(line.trim())) return true;
    if (/Seq Scan on messages\b/.test(line)) return true;
    if (!/(Index Scan|Index Only Scan) .* on messages\b/.test(line)) return false;
    if (i > 0 && /->\s+Limit\b/.test(plan[i - 1])) return false;
    const depth = line.search(/\S/);
    const end = plan.findIndex((next, k) => k > i && next.search(/\S/) <= depth);
    return !plan.slice(i + 1, end < 0 ? undefined : end).some((next) => next.includes('Index Cond'));
  });
}

/** `count` more messages queued on the cell of the message `like`, as sends would leave them (then ANALYZE on PostgreSQL). */
export async function queueCopies(t: TestApp, like: string, count: number): Promise<void> {
  const db = t.database.db;
  const row = await db.selectFrom('messages').selectAll().where('id', '=', like).executeTakeFirstOrThrow();
  const now = t.clock.now();
  const rows: MessagesTable[] = Array.from({ length: count }, () => ({
    ...row,
    id: newId('msg', t.clock, now),
    status: 'queued',
    device_id: null,
    claimed_at: null,
    lease_expires_at: null,
    attempts: 0,
    expires_at: new Date(now.getTime() + 60 * 60 * 1000).toISOString(),
  }));
  for (let i = 0; i < rows.length; i += 1000)
    await db
      .insertInto('messages')
      .values(rows.slice(i, i + 1000))
      .execute();
  if (isPostgres(db)) await db.executeQuery(CompiledQuery.raw('analyze messages'));
}
