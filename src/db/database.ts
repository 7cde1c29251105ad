// Opens the configured database: node:sqlite (default, one file under ./data) or PostgreSQL.
// Both are driven through the same Kysely query code and the same migration set.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { nodeSqliteDialect } from './node-sqlite-dialect.ts';
import type { DB } from './schema.ts';

export type DialectName = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  dialect: DialectName;
  /** PostgreSQL: how to open a dedicated connection outside the pool (LISTEN); null on SQLite. */
  clientConfig: pg.ClientConfig | null;
  /** Resolves true when a trivial query succeeds within the timeout. */
  ping(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

// int8 (COUNT, SUM, bigint columns) as JS numbers: micro-USD amounts stay far below 2^53.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));

const CHECKOUT_TIMEOUT_MS = 5_000;

export interface OpenOptions {
  /** PostgreSQL only: run every query in this schema (used by the test harness). */
  searchPath?: string;
  poolSize?: number;
}

export function openDatabase(url: string, options: OpenOptions = {}): Database {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    return wrap(new Kysely<DB>({ dialect: nodeSqliteDialect(path) }), 'sqlite', null);
  }
  const clientConfig: pg.ClientConfig = {
    connectionString: url,
    options: options.searchPath ? `-c search_path=${options.searchPath}` : undefined,
  };
  // A checkout waits at most CHECKOUT_TIMEOUT_MS (for a free client or a new connection): an
  // unreachable server is a prompt 503, not a request hanging on a TCP timeout.
  const pool = new pg.Pool({ ...clientConfig, max: options.poolSize ?? 10, connectionTimeoutMillis: CHECKOUT_TIMEOUT_MS });
  // A client losing its connection (backend terminated, server restarted, network) emits 'error'.
  // Idle clients: the pool drops them and re-emits here. Checked-out clients (a query, a
  // transaction) have no pool listener, and an unhandled 'error' event would end the process:
  // every client gets one for its whole life. The failure reaches the caller through its query
  // (or "not queryable" on the next one), and the pool discards the broken client on release.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return wrap(new Kysely<DB>({ dialect: new PostgresDialect({ pool }) }), 'postgres', clientConfig);
}

function wrap(db: Kysely<DB>, dialect: DialectName, clientConfig: pg.ClientConfig | null): Database {
  return {
    db,
    dialect,
    clientConfig,
    async ping(timeoutMs = 2000) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      const query = sql`select 1 as ok`.execute(db).then(
        () => true,
        () => false,
      );
      try {
        return await Promise.race([query, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => db.destroy(),
  };
}
