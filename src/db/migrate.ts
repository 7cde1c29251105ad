// Runs the one migration set (src/db/migrations, applied in name order) on either dialect.
import { Migrator, sql, type Migration } from 'kysely';
import type { Database } from './database.ts';
import { migrations } from './migrations/index.ts';

export async function migrateToLatest(database: Database): Promise<string[]> {
  // On PostgreSQL, Kysely must be told the schema of its bookkeeping tables; otherwise it finds
  // another schema's tables in the same database (several test schemas, or tenants).
  const schema =
    database.dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db)).rows[0].schema
      : undefined;
  const migrator = new Migrator({
    db: database.db,
    provider: { getMigrations: async (): Promise<Record<string, Migration>> => migrations },
    // 0011 (MPP) and 0012 (deposits) landed in the opposite order to their names; they touch
    // different tables, so a database that ran 0012 first may run 0011 after it.
    allowUnorderedMigrations: true,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  const applied = (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  // The migrations of a new SQLite file leave about 2 MB of WAL, past the size that starts the
  // checkpointer thread (sqlite-checkpointer.ts, about 10 MB resident): copied into the file and
  // emptied here, an idle server never starts it.
  if (database.dialect === 'sqlite' && applied.length > 0)
    await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(database.db);
  return applied;
}
