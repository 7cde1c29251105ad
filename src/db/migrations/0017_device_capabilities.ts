// What a phone can do (contract §4, issue 23): the capabilities it last stated in a heartbeat.
// A phone that never stated any can do everything (the simulator and the Android app can), so
// every existing phone starts with all three true; the Termux agent states false on its next call.
import type { Kysely } from 'kysely';

const COLUMNS = ['can_delivery_reports', 'can_mms_send', 'can_mms_receive'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const column of COLUMNS) {
    await db.schema
      .alterTable('devices')
      .addColumn(column, 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of COLUMNS) await db.schema.alterTable('devices').dropColumn(column).execute();
}
