// Kysely's SqliteDialect expects a better-sqlite3-shaped database. node:sqlite's DatabaseSync is
// close enough that a thin adapter suffices: statements are cached, booleans become 0/1 and
// undefined becomes NULL (node:sqlite binds neither). Rows are read as arrays and turned into
// objects by a function built per statement: 30% less time than node:sqlite's own row objects,
// and every row of a statement gets one object shape, which keeps the code reading them fast.
import { DatabaseSync, type StatementSync, type SQLInputValue } from 'node:sqlite';
import { SqliteDialect, SqliteQueryCompiler, type LimitNode } from 'kysely';
import { startCheckpointer, type Checkpointer } from './sqlite-checkpointer.ts';

// The send path's batched statements have one SQL text per batch size (up to 64 rows each), so a
// busy service keeps several hundred; the oldest prepared is dropped first, one at a time.
const STATEMENT_CACHE_SIZE = 1000;

function bindable(value: unknown): SQLInputValue {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  return value as SQLInputValue;
}

type RowMaker = (values: unknown[]) => Record<string, unknown>;

/** A function that makes `{name0: values[0], name1: values[1], ...}` as one object literal. */
function rowMaker(names: readonly string[]): RowMaker {
  // The names come from the statement's own columns; JSON.stringify makes each a safe key.
  return new Function(
    'values',
    `return {${names.map((name, i) => `${JSON.stringify(name)}: values[${i}]`).join(', ')}};`,
  ) as RowMaker;
}

class NodeSqliteStatement {
  readonly reader: boolean;
  private readonly statement: StatementSync;
  private makeRow: RowMaker | null = null;
  private width = -1;

  constructor(statement: StatementSync) {
    this.statement = statement;
    this.reader = statement.columns().length > 0;
    if (this.reader) statement.setReturnArrays(true);
  }

  all(parameters: ReadonlyArray<unknown>): unknown[] {
    const rows = this.statement.all(...parameters.map(bindable)) as unknown as unknown[][];
    return rows.length === 0 ? rows : rows.map(this.rowsOf(rows[0].length));
  }

  run(parameters: ReadonlyArray<unknown>): { changes: number | bigint; lastInsertRowid: number | bigint } {
    return this.statement.run(...parameters.map(bindable));
  }

  *iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown> {
    for (const values of this.statement.iterate(...parameters.map(bindable)) as IterableIterator<unknown[]>) {
      yield this.rowsOf(values.length)(values);
    }
  }

  /** The row maker for the statement's current columns (a schema change can alter `select *`). */
  private rowsOf(width: number): RowMaker {
    if (!this.makeRow || width !== this.width) {
      this.makeRow = rowMaker(this.statement.columns().map((column) => column.name));
      this.width = width;
    }
    return this.makeRow;
  }
}

class NodeSqliteDatabase {
  private readonly database: DatabaseSync;
  private readonly statements = new Map<string, NodeSqliteStatement>();
  private readonly checkpointer: Checkpointer | null;

  constructor(path: string) {
    this.database = new DatabaseSync(path);
    try {
      this.database.exec('PRAGMA journal_mode = WAL');
      this.database.exec('PRAGMA synchronous = NORMAL');
      // Checkpoints run on their own thread (sqlite-checkpointer.ts); this bound only matters if it stalls.
      this.database.exec('PRAGMA wal_autocheckpoint = 10000');
      this.database.exec('PRAGMA foreign_keys = ON');
      this.database.exec('PRAGMA busy_timeout = 5000');
      if (path !== ':memory:') assertWritable(this.database);
    } catch (error) {
      this.database.close();
      throw error;
    }
    this.checkpointer = path === ':memory:' ? null : startCheckpointer(path);
  }

  prepare(sql: string): NodeSqliteStatement {
    let statement = this.statements.get(sql);
    if (!statement) {
      if (this.statements.size >= STATEMENT_CACHE_SIZE) this.statements.delete(this.statements.keys().next().value!);
      statement = new NodeSqliteStatement(this.database.prepare(sql));
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Resolves once both connections are closed, after close(). */
  closed: Promise<void> = Promise.resolve();

  // The thread's connection first: the writer's close, last, then checkpoints and removes the
  // -wal and -shm files, which it cannot do while the thread still holds its connection.
  close(): void {
    this.statements.clear();
    this.closed = (async () => {
      await this.checkpointer?.stop();
      this.database.close();
    })();
  }
}

/**
 * A read-only file opens, reads and even migrates (when up to date) without complaint; the first
 * write fails. A table created and rolled back starts a write without writing to the WAL or the
 * file, and works on an empty database. Throws node:sqlite's error (errcode SQLITE_READONLY).
 */
function assertWritable(database: DatabaseSync): void {
  database.exec('BEGIN IMMEDIATE');
  try {
    database.exec('CREATE TABLE cellgate_write_probe (x)');
  } finally {
    database.exec('ROLLBACK');
  }
}

/**
 * SQLite reads the value bound to a bare `limit ?` when it plans the statement, and so plans it
 * again each time the value is bound: every run of a prepared statement with a bound limit was
 * prepared anew (5 µs more in a loop; 60 µs more in a busy service, where the parser's and
 * planner's code and data are out of the CPU's caches). A cast is an expression whose value the
 * planner does not read: the statement is planned once.
 */
class NodeSqliteQueryCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    this.append('limit cast(');
    this.visitNode(node.limit);
    this.append(' as integer)');
  }
}

class NodeSqliteKyselyDialect extends SqliteDialect {
  override createQueryCompiler(): SqliteQueryCompiler {
    return new NodeSqliteQueryCompiler();
  }
}

/**
 * A Kysely dialect on the SQLite file at `path`, and what to await after Kysely's destroy() (which
 * does not wait for close): both connections closed.
 */
export function nodeSqliteDialect(path: string): { dialect: SqliteDialect; closed(): Promise<void> } {
  const database = new NodeSqliteDatabase(path);
  return { dialect: new NodeSqliteKyselyDialect({ database }), closed: () => database.closed };
}
