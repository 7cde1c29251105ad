// Deposits to a seller pay_to address, reported by the payment processor's signed webhook:
// applied once per processor deposit id, credited to the organization that registered the
// sending wallet, or held for the operator to assign.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('x402_deposits')
    .addColumn('id', 'text', (c) => c.primaryKey()) // dep_...
    .addColumn('deposit_id', 'text', (c) => c.notNull().unique()) // the processor's id
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('amount_micros', 'bigint', (c) => c.notNull())
    .addColumn('transaction', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull()) // credited | held
    .addColumn('organization_id', 'text', (c) => c.references('organizations.id'))
    .addColumn('payment_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('credited_at', 'text')
    .execute();
  await db.schema.createIndex('x402_deposits_status').on('x402_deposits').columns(['status', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('x402_deposits').execute();
}
