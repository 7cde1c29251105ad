// The event outbox: written in the same transaction as the change it reports. `seq` is a
// database-assigned order used by the stream and the webhook dispatcher; `id` is the public id.
import type { Kysely } from 'kysely';
import { isPostgres } from './dialect.ts';

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema
    .createTable('events')
    .addColumn('seq', postgres ? 'bigserial' : 'integer', (c) =>
      postgres ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull()) // JSON
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_organization').on('events').columns(['organization_id', 'seq']).execute();
  await db.schema.createIndex('events_created').on('events').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('events').execute();
}
