// Webhook endpoints, one delivery row per (event, webhook) written in the event's transaction,
// and the log of every attempt. Deliveries are a work queue: due rows are claimed with a lease.
import type { Kysely } from 'kysely';
import { isPostgres } from './dialect.ts';

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    // SHA-256 of the canonical create body: a client_id repeat with another body is a conflict.
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('event_types', 'text', (c) => c.notNull()) // JSON array
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'text')
    .addColumn('disabled_reason', 'text')
    // First failed attempt since the last success; 5 days of this disables the endpoint.
    .addColumn('failing_since', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  // client_id is unique per organization forever, deleted webhooks included.
  await db.schema
    .createIndex('webhooks_client_id')
    .unique()
    .on('webhooks')
    .columns(['organization_id', 'client_id'])
    .execute();
  await db.schema.createIndex('webhooks_organization').on('webhooks').columns(['organization_id', 'id']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id'))
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    // The envelope exactly as signed and sent; identical on every attempt.
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    // When the next attempt is due; while an attempt is in flight, when its lease ends. Null
    // when nothing is due: succeeded, failed, or held while the endpoint is disabled. The work
    // queue is exactly the rows with next_attempt_at <= now, read in index order.
    .addColumn('next_attempt_at', 'text')
    .addColumn('lease_token', 'text')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('last_latency_ms', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').column('next_attempt_at').execute();
  await db.schema
    .createIndex('webhook_deliveries_webhook')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'id'])
    .execute();
  await db.schema.createIndex('webhook_deliveries_updated').on('webhook_deliveries').column('updated_at').execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', postgres ? 'bigserial' : 'integer', (c) =>
      postgres ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id'))
    .addColumn('attempted_at', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    // Which process made the attempt (host:pid), for operators of several processes.
    .addColumn('attempted_by', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_attempts_delivery')
    .on('webhook_attempts')
    .columns(['delivery_id', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_attempts').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhooks').execute();
}
