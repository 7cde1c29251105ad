// Devices (the operator's phones) and cells (the organization's phone lines they carry).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('devices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('phone_number', 'text', (c) => c.notNull().unique())
    .addColumn('label', 'text')
    .addColumn('send_rate_per_minute', 'integer', (c) => c.notNull())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    // The cell this device carries; null while free. One place holds the assignment.
    .addColumn('cell_id', 'text', (c) => c.unique())
    .addColumn('online', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_seen_at', 'text')
    .addColumn('battery_pct', 'integer')
    .addColumn('charging', 'integer')
    .addColumn('signal_dbm', 'integer')
    .addColumn('app_version', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('devices_free').on('devices').columns(['cell_id', 'id']).execute();
  await db.schema.createIndex('devices_online_seen').on('devices').columns(['online', 'last_seen_at']).execute();

  await db.schema
    .createTable('cells')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('phone_number', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('device_id', 'text')
    .addColumn('pod_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('released_at', 'text')
    .execute();
  await db.schema.createIndex('cells_organization').on('cells').columns(['organization_id', 'status', 'id']).execute();
  await db.schema.createIndex('cells_provisioning').on('cells').columns(['status', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('cells').execute();
  await db.schema.dropTable('devices').execute();
}
