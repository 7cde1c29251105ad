// A database of its own for a growth benchmark, and a way to read its size in bytes: a temporary
// SQLite file, or a PostgreSQL database created for the run (dropped on exit).
// Kept out of bench/*.ts so that bench/run.ts does not run it as a benchmark.
import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const ADMIN_POSTGRES_URL = process.env.CELLGATE_BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

export interface SizedDatabase {
  url: string;
  size: () => Promise<number>;
}

export async function sizedDatabase(
  postgres: boolean,
  prefix: string,
  onExit: (cleanup: () => Promise<void>) => void,
): Promise<SizedDatabase> {
  if (!postgres) {
    const dir = mkdtempSync(join(tmpdir(), `cellgate-${prefix}-`));
    onExit(async () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'bench.db');
    return {
      url: `sqlite:${file}`,
      // Pages in use (the WAL included, through a reader), not the file's length: a checkpoint
      // moves bytes between the two files without the data growing.
      size: async () => {
        const db = new DatabaseSync(file, { readOnly: true });
        try {
          const pages = (name: string) => Number((db.prepare(`PRAGMA ${name}`).get() as Record<string, number>)[name]);
          return (pages('page_count') - pages('freelist_count')) * pages('page_size');
        } finally {
          db.close();
        }
      },
    };
  }
  const name = `cellgate_${prefix.replaceAll('-', '_')}_${process.pid}_${Date.now()}`;
  const admin = async <T>(run: (client: pg.Client) => Promise<T>, url = ADMIN_POSTGRES_URL) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await run(client);
    } finally {
      await client.end();
    }
  };
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  onExit(() => admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined));
  const url = new URL(ADMIN_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    size: () =>
      admin(
        async (client) => Number((await client.query('select pg_database_size(current_database()) as n')).rows[0].n),
        url.toString(),
      ),
  };
}
