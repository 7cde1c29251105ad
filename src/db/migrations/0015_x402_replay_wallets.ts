// x402 safe to expose (issue 22): every settled x402 payment is recorded by its payer and
// authorization nonce (Base) or transaction signature (Solana) under a unique key, so a payload is
// credited once, ever; payer wallets are unverified until the organization signs their
// verification message, and a (network, address) is verified for at most one organization
// (unverified claims of the same address by several organizations may coexist).
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('x402_settlements')
    .addColumn('network', 'text', (c) => c.notNull()) // CAIP-2 id, e.g. eip155:8453
    .addColumn('payer', 'text', (c) => c.notNull())
    .addColumn('reference', 'text', (c) => c.notNull()) // EIP-3009 nonce / Solana signature
    .addColumn('payment_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('x402_settlements_pkey', ['network', 'payer', 'reference'])
    .execute();

  await db.schema.alterTable('x402_wallets').addColumn('verification_nonce', 'text').execute();
  await db.schema.alterTable('x402_wallets').addColumn('verified_at', 'text').execute();
  // Wallets registered before are claims like any other: unverified, each with its own nonce.
  const wallets = await db.selectFrom('x402_wallets').select('id').execute();
  for (const { id } of wallets) {
    await db
      .updateTable('x402_wallets')
      .set({ verification_nonce: randomBytes(18).toString('base64url') })
      .where('id', '=', id)
      .execute();
  }
  await db.schema.dropIndex('x402_wallets_address').execute();
  await db.schema
    .createIndex('x402_wallets_claim')
    .unique()
    .on('x402_wallets')
    .columns(['organization_id', 'network', 'address'])
    .execute();
  await db.schema.createIndex('x402_wallets_address').on('x402_wallets').columns(['network', 'address']).execute();
  await db.schema
    .createIndex('x402_wallets_verified')
    .unique()
    .on('x402_wallets')
    .columns(['network', 'address'])
    .where(sql.ref('verified_at'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('x402_wallets_verified').execute();
  await db.schema.dropIndex('x402_wallets_address').execute();
  await db.schema.dropIndex('x402_wallets_claim').execute();
  await db.schema
    .createIndex('x402_wallets_address')
    .unique()
    .on('x402_wallets')
    .columns(['network', 'address'])
    .execute();
  await db.schema.alterTable('x402_wallets').dropColumn('verified_at').execute();
  await db.schema.alterTable('x402_wallets').dropColumn('verification_nonce').execute();
  await db.schema.dropTable('x402_settlements').execute();
}
