// Stripe Checkout on the card_processor rail: a payment records which processor carries it
// (`local`, the built-in development page, or `stripe`) and, for Stripe, its Checkout Session (id
// and URL). Stripe's webhook events are kept by id, so a replayed event is applied once.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('payments')
    .addColumn('processor', 'text', (c) => c.notNull().defaultTo('local'))
    .execute();
  // The Checkout Session (cs_...) and its URL; null until the session is created.
  await db.schema.alterTable('payments').addColumn('external_id', 'text').execute();
  await db.schema.alterTable('payments').addColumn('external_url', 'text').execute();
  await db.schema.createIndex('payments_external_id').on('payments').column('external_id').unique().execute();

  await db.schema
    .createTable('stripe_events')
    .addColumn('id', 'text', (c) => c.primaryKey()) // evt_...: each event is applied once
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payment_id', 'text')
    // credited | already_paid | unpaid | unknown_payment | mismatch | ignored
    .addColumn('outcome', 'text')
    .addColumn('received_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('stripe_events').execute();
  await db.schema.dropIndex('payments_external_id').execute();
  await db.schema.alterTable('payments').dropColumn('external_url').execute();
  await db.schema.alterTable('payments').dropColumn('external_id').execute();
  await db.schema.alterTable('payments').dropColumn('processor').execute();
}
