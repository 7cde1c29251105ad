// Phones running the SMSGate app (contract §13): enrollments an operator makes for the app's
// private-server sign-in (token and code stored as hashes), the SIM lines a phone reports, and per
// device the agent it runs, the app's push token and the key the app signs its webhooks with.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('device_enrollments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('code_expires_at', 'text', (c) => c.notNull())
    .addColumn('label', 'text')
    .addColumn('send_rate_per_minute', 'integer')
    .addColumn('daily_send_limit', 'integer')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('device_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('device_enrollments_code')
    .on('device_enrollments')
    .columns(['code_hash', 'code_expires_at'])
    .execute();

  await db.schema
    .createTable('device_sims')
    .addColumn('device_id', 'text', (c) => c.notNull())
    .addColumn('sim_number', 'integer', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('phone_number', 'text')
    .addColumn('carrier', 'text')
    .addColumn('iccid', 'text')
    .addPrimaryKeyConstraint('device_sims_pk', ['device_id', 'sim_number'])
    .execute();

  await db.schema
    .alterTable('devices')
    .addColumn('agent', 'text', (c) => c.notNull().defaultTo('native'))
    .execute();
  await db.schema.alterTable('devices').addColumn('signing_key', 'text').execute();
  await db.schema.alterTable('devices').addColumn('push_token', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['push_token', 'signing_key', 'agent'])
    await db.schema.alterTable('devices').dropColumn(column).execute();
  await db.schema.dropTable('device_sims').execute();
  await db.schema.dropTable('device_enrollments').execute();
}
