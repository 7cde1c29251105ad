// Bounded stored resources (contract §2, issue 33): one counter per owner and resource, changed in
// the transaction that stores or removes the resource (src/operations/stored-caps.ts). Filled here
// from what is stored now, so a cap counts what came before it too.
import { sql, type Kysely } from 'kysely';

/** Each counter: its owner column, its count, and the rows it counts. */
const BACKFILL: Record<string, [owner: string, count: string, rows: string]> = {
  pods: ['organization_id', 'count(*)', 'pods where deleted_at is null'],
  contact_lists: ['organization_id', 'count(*)', 'contact_lists'],
  list_numbers: ['organization_id', 'sum(number_count)', 'contact_lists'],
  drafts: ['organization_id', 'count(*)', "drafts where status = 'draft'"],
  scheduled_messages: ['organization_id', 'count(*)', "messages where status = 'scheduled'"],
  webhooks: ['organization_id', 'count(*)', 'webhooks where organization_id is not null and deleted_at is null'],
  ignored_participants: ['scope_id', 'count(*)', 'ignored_participants'],
};

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('stored_counts')
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('stored_counts_pk', ['owner_id', 'resource'])
    .execute();
  for (const [resource, [owner, count, rows]] of Object.entries(BACKFILL)) {
    await sql`insert into stored_counts (owner_id, resource, count)
      select ${sql.raw(owner)}, ${resource}, cast(${sql.raw(count)} as integer)
      from ${sql.raw(rows)} group by ${sql.raw(owner)}`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('stored_counts').execute();
}
