// Heartbeat history (contract §11, issue 25): what each phone reported, kept 7 days. One row per
// device per UTC minute (`minute` = epoch minutes; the first heartbeat of the minute wins), so a
// phone beating every few seconds still writes at most 10,080 rows a week.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('device_heartbeats')
    .addColumn('device_id', 'text', (c) => c.notNull())
    .addColumn('minute', 'integer', (c) => c.notNull())
    .addColumn('battery_pct', 'integer')
    .addColumn('charging', 'integer')
    .addColumn('signal_dbm', 'integer')
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('device_heartbeats_pk', ['device_id', 'minute'])
    .execute();
  // Pruning deletes by age across every device.
  await db.schema.createIndex('device_heartbeats_minute').on('device_heartbeats').column('minute').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('device_heartbeats').execute();
}
