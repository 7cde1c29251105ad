// The SMSGate app reports its SIM numbers redacted to their last four digits (GatewayService.kt
// redact()), so a phone may register before any of its lines has a known number: devices.phone_number
// may be null until the operator sets one (contract §13). device_sims.reported_number keeps what
// the app showed (e.g. "********0123") as the operator's hint. A number is carried by one line at
// most: a unique index (nulls are not compared), after clearing any repeat on a line without a cell.
import { sql, type Kysely } from 'kysely';
import { dropNotNull } from './drop-not-null.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await dropNotNull(db, [{ table: 'devices', column: 'phone_number' }], '0031');
  await db.schema.alterTable('device_sims').addColumn('reported_number', 'text').execute();
  await sql`update device_sims set phone_number = null where cell_id is null and exists (
    select 1 from device_sims other where other.phone_number = device_sims.phone_number
      and (other.cell_id is not null or other.device_id < device_sims.device_id
        or (other.device_id = device_sims.device_id and other.sim_number < device_sims.sim_number)))`.execute(db);
  await db.schema.createIndex('device_sims_phone_number').unique().on('device_sims').column('phone_number').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('device_sims_phone_number').execute();
  await db.schema.alterTable('device_sims').dropColumn('reported_number').execute();
}
