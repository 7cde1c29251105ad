// Scheduled sends and quiet hours (contract §12). A message may wait as `scheduled` until
// `send_at`, for the time asked (`schedule_reason` 'send_at') or for the end of quiet hours
// ('quiet_hours'); the worker queues (and charges) the due ones off a partial index. Cells and pods
// carry their quiet hours as JSON ({start, end, time_zone}) or null.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('send_at', 'text').execute();
  await db.schema.alterTable('messages').addColumn('schedule_reason', 'text').execute();
  await db.schema
    .createIndex('messages_scheduled')
    .on('messages')
    .columns(['send_at', 'id'])
    .where(sql.ref('status'), '=', 'scheduled')
    .execute();
  await db.schema.alterTable('cells').addColumn('quiet_hours', 'text').execute();
  await db.schema.alterTable('pods').addColumn('quiet_hours', 'text').execute();
  // A broadcast's send_at: its messages are scheduled for it.
  await db.schema.alterTable('cycle_jobs').addColumn('send_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('cycle_jobs').dropColumn('send_at').execute();
  await db.schema.alterTable('pods').dropColumn('quiet_hours').execute();
  await db.schema.alterTable('cells').dropColumn('quiet_hours').execute();
  await db.schema.dropIndex('messages_scheduled').execute();
  await db.schema.alterTable('messages').dropColumn('schedule_reason').execute();
  await db.schema.alterTable('messages').dropColumn('send_at').execute();
}
