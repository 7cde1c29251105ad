// How statements read the messages table (issue 36): a deep queue made quickly, and each
// statement's plan (SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN) and rows read (PostgreSQL's
// EXPLAIN ANALYZE), so a test can prove that a path costs the same however deep a cell's queue.
import { CompiledQuery } from 'kysely';
import { isPostgres } from '../../src/db/migrations/dialect.ts';
import type { Statement } from '../../src/db/observed-dialect.ts';
import { newId } from '../../src/lib/ids.ts';
import type { MessagesTable } from '../../src/modules/messages/tables.ts';
import type { TestApp } from '../harness.ts';

/** `count` more messages queued on the cell of the message `like`, as sends would leave them. */
export async function queueMany(t: TestApp, like: string, count: number): Promise<void> {
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

/** A statement reading or writing the messages table (not a transaction's begin or end). */
export const touchesMessages = (statement: Statement) =>
  /\b(from|into|update)\s+"messages"/i.test(statement.sql) && !/^\s*(begin|commit|rollback)/i.test(statement.sql);

/** The statement's plan, a line a node. */
export async function explain(t: TestApp, statement: Statement): Promise<string[]> {
  const prefix = isPostgres(t.database.db) ? 'explain ' : 'explain query plan ';
  const { rows } = await t.database.db.executeQuery<Record<string, unknown>>(
    CompiledQuery.raw(prefix + statement.sql, [...statement.parameters]),
  );
  return rows.map((row) => String(row['QUERY PLAN'] ?? row.detail));
}

/** PostgreSQL: the rows its plan's nodes on messages returned, all together. */
export async function rowsReadFromMessages(t: TestApp, statement: Statement): Promise<number> {
  const { rows } = await t.database.db.executeQuery<Record<string, string>>(
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
