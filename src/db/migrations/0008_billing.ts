// Billing (contract §7): the billing record of each organization (state, tier, paid period), the
// append-only ledger whose sum is the prepaid balance (a rail reference is credited once: unique),
// payments started on a rail, the payer wallets of the x402 rail (one organization per network and address), usage records
// (one per billable unit, priced), and the log of operator actions.
import type { Kysely } from 'kysely';
import { isPostgres } from './dialect.ts';

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema
    .createTable('billing_accounts')
    .addColumn('organization_id', 'text', (c) => c.primaryKey().references('organizations.id'))
    .addColumn('state', 'text', (c) => c.notNull()) // inactive | active | past_due | suspended
    .addColumn('tier', 'text')
    .addColumn('current_period_end', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('billing_accounts_period_end')
    .on('billing_accounts')
    .columns(['current_period_end'])
    .execute();

  await db.schema
    .createTable('ledger_entries')
    .addColumn('id', postgres ? 'bigserial' : 'integer', (c) =>
      postgres ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    // payment | operator_credit | operator_grant | renewal | message | refund | ...
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('amount_micros', 'bigint', (c) => c.notNull()) // credits positive, debits negative
    // What the row is for: a payment's rail reference, a message id. Unique: credited once.
    .addColumn('reference', 'text', (c) => c.unique())
    .addColumn('description', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('ledger_entries_organization')
    .on('ledger_entries')
    .columns(['organization_id', 'id'])
    .execute();

  // A payment started on a rail (the local card checkout): credited once when it succeeds.
  await db.schema
    .createTable('payments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('rail', 'text', (c) => c.notNull())
    .addColumn('intent', 'text', (c) => c.notNull())
    .addColumn('tier', 'text')
    .addColumn('cell_id', 'text')
    .addColumn('amount_micros', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull()) // pending | succeeded
    // SHA-256 of the secret in the checkout URL.
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute();
  await db.schema.createIndex('payments_organization').on('payments').columns(['organization_id', 'id']).execute();

  await db.schema
    .createTable('x402_wallets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull()) // canonical form (EIP-55 on base)
    .addColumn('label', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('x402_wallets_address')
    .unique()
    .on('x402_wallets')
    .columns(['network', 'address'])
    .execute();
  await db.schema
    .createIndex('x402_wallets_organization')
    .on('x402_wallets')
    .columns(['organization_id', 'id'])
    .execute();

  await db.schema
    .createTable('usage_records')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('cell_id', 'text')
    .addColumn('message_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull()) // sms | mms | cell_month
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('unit_price_micros', 'bigint', (c) => c.notNull())
    .addColumn('amount_micros', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('usage_records_organization')
    .on('usage_records')
    .columns(['organization_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('billing_operator_actions')
    .addColumn('id', postgres ? 'bigserial' : 'integer', (c) =>
      postgres ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('action', 'text', (c) => c.notNull()) // suspend | reinstate | credit | grant
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('detail', 'text') // JSON
    .addColumn('admin_token_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('billing_operator_actions_organization')
    .on('billing_operator_actions')
    .columns(['organization_id', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'billing_operator_actions',
    'usage_records',
    'x402_wallets',
    'payments',
    'ledger_entries',
    'billing_accounts',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
