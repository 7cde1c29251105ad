// Verification codes (contract §12): the one-time code found in an inbound message and the service
// the text names, and an index for GET /v1/cells/{cell_id}/codes (a cell's codes, newest first).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('code', 'text').execute();
  await db.schema.alterTable('messages').addColumn('code_service', 'text').execute();
  await db.schema
    .createIndex('messages_cell_codes')
    .on('messages')
    .columns(['cell_id', 'id'])
    .where(sql.ref('code'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('messages_cell_codes').execute();
  await db.schema.alterTable('messages').dropColumn('code_service').execute();
  await db.schema.alterTable('messages').dropColumn('code').execute();
}
