// Two SIMs, two cells (contract §13): a SIM line with a number carries its own cell. The line's
// cell_id is given under the same conditional update as devices.cell_id (unique: one line per cell).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('device_sims').addColumn('cell_id', 'text').execute();
  await db.schema.createIndex('device_sims_cell').unique().on('device_sims').column('cell_id').execute();
  // A phone that already carries a cell carries it on the line with the phone's number.
  await sql`update device_sims set cell_id = (select d.cell_id from devices d
    where d.id = device_sims.device_id and d.phone_number = device_sims.phone_number)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('device_sims_cell').execute();
  await db.schema.alterTable('device_sims').dropColumn('cell_id').execute();
}
