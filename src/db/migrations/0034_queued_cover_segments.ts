// A send's RateLimit-* headers sum the segments of the cell's oldest queued messages (at most a
// minute of its phone's rate) in every send batch. With the segments in the (cell_id, status, id)
// index that sum reads the index alone, never a message row: one index instead of another.
import type { Kysely } from 'kysely';

const cellStatusIndex = (db: Kysely<any>, columns: string[]) =>
  db.schema.createIndex('messages_cell_status').on('messages').columns(columns).execute();

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('messages_cell_status').execute();
  await cellStatusIndex(db, ['cell_id', 'status', 'id', 'segments']);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('messages_cell_status').execute();
  await cellStatusIndex(db, ['cell_id', 'status', 'id']);
}
