// Opens the configured database: node:sqlite (default, one file under ./data) or PostgreSQL.
// Both are driven through the same Kysely query code and the same migration set.
import { Kysely, PostgresDialect, sql, type Dialect } from 'kysely';
import type pg from 'pg';
import { onFirstUse } from '../lib/on-first-use.ts';
import { nodeSqliteDialect } from './node-sqlite-dialect.ts';
import { observedDialect, type StatementObserver } from './observed-dialect.ts';
import { statementName } from './prepared.ts';
import type { DB } from './schema.ts';
import { isReadOnlyError, lockSqliteFile, prepareSqlitePath, sqliteOpenError } from './sqlite-file.ts';

export { SqliteFileError } from './sqlite-file.ts';

export type DialectName = 'sqlite' | 'postgres';
export type DatabaseHealth = 'ok' | 'unreachable' | 'read_only';

export interface Database {
  db: Kysely<DB>;
  dialect: DialectName;
  /** PostgreSQL: how to open a dedicated connection outside the pool (LISTEN); null on SQLite. */
  clientConfig: pg.ClientConfig | null;
  /**
   * Whether the database takes writes, within the timeout: a statement that starts a write and
   * changes nothing (a read-only file or replica answers 'read_only'; no answer, 'unreachable').
   */
  ping(timeoutMs?: number): Promise<DatabaseHealth>;
  close(): Promise<void>;
}

const pgDriver = onFirstUse<typeof pg>('pg');
let pgTypesSet = false;

/** The `pg` driver, loaded on first use: a service on SQLite never loads it (~13 MB resident). */
export function loadPg(): typeof pg {
  const driver = pgDriver();
  if (!pgTypesSet) {
    // int8 (COUNT, SUM, bigint columns) as JS numbers: micro-USD amounts stay far below 2^53.
    driver.types.setTypeParser(20, (value) => Number.parseInt(value, 10));
    pgTypesSet = true;
  }
  return driver;
}

const CHECKOUT_TIMEOUT_MS = 5_000;

export interface OpenOptions {
  /** PostgreSQL only: run every query in this schema (used by the test harness). */
  searchPath?: string;
  poolSize?: number;
  /**
   * SQLite only: this process serves the file (`cellgate serve`): refuse when another process
   * does (a `<path>.lock` holding its pid), until close(). Short commands (migrate, admin) and
   * in-process tests share the file through SQLite's own locking.
   */
  exclusive?: boolean;
  /**
   * PostgreSQL only: idle connections do not keep the process alive (the test harness keeps a
   * database's pool open between tests, and a test process ends when its last test does).
   */
  allowExitOnIdle?: boolean;
  /** Tests only: sees every statement before it runs (db/observed-dialect.ts). */
  observe?: StatementObserver;
}

export function openDatabase(url: string, options: OpenOptions = {}): Database {
  const kysely = (dialect: Dialect) =>
    new Kysely<DB>({ dialect: options.observe ? observedDialect(dialect, options.observe) : dialect });
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    if (path === ':memory:') return wrap(kysely(nodeSqliteDialect(path).dialect), 'sqlite', null);
    prepareSqlitePath(path);
    const release = options.exclusive ? lockSqliteFile(path) : () => {};
    try {
      const sqlite = nodeSqliteDialect(path);
      return wrap(kysely(sqlite.dialect), 'sqlite', null, async () => {
        await sqlite.closed();
        release();
      });
    } catch (error) {
      release();
      throw sqliteOpenError(path, error);
    }
  }
  const clientConfig: pg.ClientConfig = {
    connectionString: url,
    ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
  };
  // A checkout waits at most CHECKOUT_TIMEOUT_MS (for a free client or a new connection): an
  // unreachable server is a prompt 503, not a request hanging on a TCP timeout.
  const pool = new (loadPg().Pool)({
    ...clientConfig,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: CHECKOUT_TIMEOUT_MS,
    allowExitOnIdle: options.allowExitOnIdle,
  });
  // A client losing its connection (backend terminated, server restarted, network) emits 'error'.
  // Idle clients: the pool drops them and re-emits here. Checked-out clients (a query, a
  // transaction) have no pool listener, and an unhandled 'error' event would end the process:
  // every client gets one for its whole life. The failure reaches the caller through its query
  // (or "not queryable" on the next one), and the pool discards the broken client on release.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
    nameHotStatements(client);
  });
  return wrap(kysely(new PostgresDialect({ pool })), 'postgres', clientConfig);
}

/**
 * Runs the hot path's statements (prepared.ts) as named statements: PostgreSQL parses each once
 * per connection instead of on every run. Kysely passes the SQL text and its values.
 */
function nameHotStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const [text, values] = args;
    const name = args.length === 2 && typeof text === 'string' ? statementName(text) : undefined;
    return name ? query({ name, text, values }) : query(...args);
  };
}

// SQLite: a DELETE that matches nothing still takes the write lock, so a read-only file (or
// PRAGMA query_only) refuses it, without writing a page to the WAL. PostgreSQL: a read-only
// server (a hot standby, default_transaction_read_only) says so in a setting, with no table lock.
const sqliteWriteProbe = sql`delete from kysely_migration where 0`;
const postgresWriteProbe = sql<{ read_only: string }>`select current_setting('transaction_read_only') as read_only`;

async function probe(db: Kysely<DB>, dialect: DialectName): Promise<DatabaseHealth> {
  try {
    if (dialect === 'sqlite') {
      await sqliteWriteProbe.execute(db);
      return 'ok';
    }
    const { rows } = await postgresWriteProbe.execute(db);
    return rows[0]?.read_only === 'on' ? 'read_only' : 'ok';
  } catch (error) {
    return isReadOnlyError(error) ? 'read_only' : 'unreachable';
  }
}

function wrap(
  db: Kysely<DB>,
  dialect: DialectName,
  clientConfig: pg.ClientConfig | null,
  release: () => void | Promise<void> = () => {},
): Database {
  return {
    db,
    dialect,
    clientConfig,
    async ping(timeoutMs = 2000) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<DatabaseHealth>((resolve) => {
        timer = setTimeout(() => resolve('unreachable'), timeoutMs);
      });
      try {
        return await Promise.race([probe(db, dialect), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => db.destroy().finally(release),
  };
}
