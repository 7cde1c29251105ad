// Discarded drafts are bounded (src/modules/pods/drafts-service.ts keepDiscarded): a counter per
// organization, filled from what is stored now, and an index that reads an organization's
// discarded drafts oldest first (the ones a discard past the cap deletes).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('drafts_discarded')
    .on('drafts')
    .columns(['organization_id', 'status', 'updated_at', 'id'])
    .execute();
  await sql`insert into stored_counts (owner_id, resource, count)
    select organization_id, 'discarded_drafts', cast(count(*) as integer)
    from drafts where status = 'discarded' group by organization_id`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from stored_counts where resource = 'discarded_drafts'`.execute(db);
  await db.schema.dropIndex('drafts_discarded').execute();
}
