// The operator's fleet and SIM safety (contract §11, issue 25): the audit log of operator
// actions; per device the pause, the health state and its reason, the daily cap in segments and
// the battery-low flag (so device.battery_low fires once per dip); and the recent send outcomes
// of each phone the health state is decided from (kept 7 days). send_rate_per_minute now counts
// SMS segments and is at most 30 (Android refuses more per app per minute on an unattended phone).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('operator_audit')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('admin_token_id', 'text', (c) => c.notNull())
    .addColumn('admin_token_label', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('detail', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('operator_audit_target').on('operator_audit').columns(['target_id', 'id']).execute();

  const columns: [string, 'integer' | 'text', unknown][] = [
    ['paused', 'integer', 0],
    ['paused_reason', 'text', null],
    ['health', 'text', 'healthy'],
    ['health_reason', 'text', null],
    ['health_changed_at', 'text', null],
    ['health_reset_at', 'text', null],
    ['daily_send_limit', 'integer', 300],
    ['battery_low', 'integer', 0],
  ];
  for (const [name, type, fallback] of columns) {
    await db.schema
      .alterTable('devices')
      .addColumn(name, type, (c) => (fallback === null ? c : c.notNull().defaultTo(fallback)))
      .execute();
  }
  await db.updateTable('devices').set({ send_rate_per_minute: 30 }).where('send_rate_per_minute', '>', 30).execute();

  await db.schema
    .createTable('device_outcomes')
    .addColumn('device_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('segments', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('device_outcomes_pk', ['device_id', 'created_at', 'message_id', 'outcome'])
    .execute();
  await db.schema.createIndex('device_outcomes_created').on('device_outcomes').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('device_outcomes').execute();
  for (const name of [
    'paused',
    'paused_reason',
    'health',
    'health_reason',
    'health_changed_at',
    'health_reset_at',
    'daily_send_limit',
    'battery_low',
  ])
    await db.schema.alterTable('devices').dropColumn(name).execute();
  await db.schema.dropTable('operator_audit').execute();
}
