// The MPP rail: each credential accepted is recorded by its challenge id, and the payment proof it
// carried (e.g. a Tempo transaction hash) is unique, so a credential or its proof credits once
// whatever the processes.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mpp_credentials')
    .addColumn('challenge_id', 'text', (c) => c.primaryKey())
    // <method>:<proof>, e.g. tempo:4217:0x<transaction hash>
    .addColumn('reference', 'text', (c) => c.notNull().unique())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('payment_id', 'text', (c) => c.notNull().references('payments.id'))
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('mpp_credentials').execute();
}
