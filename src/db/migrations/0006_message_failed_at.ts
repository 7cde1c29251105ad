// When a message failed: "failed in the last 24 hours" (agent status) reads this column, never the
// time inside the message id, which says when the message was created.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('failed_at', 'text').execute();
  await db
    .updateTable('messages')
    .set({ failed_at: sql.ref('updated_at') })
    .where('status', '=', 'failed')
    .execute();
  await db.schema
    .createIndex('messages_failed')
    .on('messages')
    .columns(['organization_id', 'failed_at'])
    .where(sql.ref('status'), '=', 'failed')
    .execute();
}
