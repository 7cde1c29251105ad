// Billing enforcement: every send checks and debits the prepaid balance in its own transaction,
// so the balance is kept on the account row (summing the ledger per send would grow with it); a
// ledger write and its balance change share a transaction, so the two always agree. A paid
// create_cell leaves a credit that the next cell create consumes.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('billing_accounts')
    .addColumn('prepaid_balance_micros', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('billing_accounts')
    .addColumn('cell_credits', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // Every ledger row so far was written with its account row (lockAccount); sum them in.
  await db
    .updateTable('billing_accounts')
    .set({
      prepaid_balance_micros: sql`coalesce((select sum(amount_micros) from ledger_entries where ledger_entries.organization_id = billing_accounts.organization_id), 0)`,
    })
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('billing_accounts').dropColumn('cell_credits').execute();
  await db.schema.alterTable('billing_accounts').dropColumn('prepaid_balance_micros').execute();
}
