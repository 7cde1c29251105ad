// How statements read the messages table (issue 36): a deep queue made quickly, and each
// statement's plan (SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN) and rows read (PostgreSQL's
// EXPLAIN ANALYZE), so a test can prove that a path costs the same however deep a cell's queue;
// and whether SQLite plans a statement again each time it runs.
import { constants, DatabaseSync, type SQLInputValue } from 'node:sqlite';
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

/**
 * SQLite: whether running `sql` with `values` plans it again. SQLite reads some bound values when
 * it plans (a bare `limit ?`, a status a partial index names) and then plans the statement anew
 * each time they are bound. A plan is made at preparation, which SQLite's authorizer watches
 * (setting one makes every statement plan again once: the first run is not counted).
 */
export function replanned(database: DatabaseSync, sql: string, values: readonly unknown[]): boolean {
  let planned = 0;
  const prepared = database.prepare(sql);
  database.setAuthorizer(() => {
    planned += 1;
    return constants.SQLITE_OK;
  });
  const bound = values.map((value) => (typeof value === 'boolean' ? Number(value) : value)) as SQLInputValue[];
  // Each run rolled back (an insert run twice would meet itself); the first absorbs the authorizer's replan.
  const run = () => {
    database.exec('begin');
    try {
      planned = 0;
      prepared.all(...bound);
      return planned;
    } finally {
      database.exec('rollback');
    }
  };
  try {
    run();
    return run() > 0;
  } finally {
    database.setAuthorizer(null);
  }
}

/** SQLite: whether the app's `statement` is planned again when run, on an empty copy of its schema. */
export async function replannedOnBind(t: TestApp, statement: Statement): Promise<boolean> {
  const { rows } = await t.database.db.executeQuery<{ sql: string }>(
    CompiledQuery.raw("select sql from sqlite_master where sql is not null and name not like 'sqlite_%'"),
  );
  const copy = new DatabaseSync(':memory:', { enableForeignKeyConstraints: false });
  try {
    for (const { sql } of rows) copy.exec(sql);
    return replanned(copy, statement.sql, statement.parameters);
  } finally {
    copy.close();
  }
}
