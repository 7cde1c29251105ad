// OAuth expiry (contract §8, issue 22): expired authorization requests and clients that never got
// a grant are deleted by the prune loop. These indexes keep its queries (and the grant check a
// client's deletion makes) off full table scans.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('oauth_requests_expires').on('oauth_requests').column('expires_at').execute();
  await db.schema
    .createIndex('oauth_requests_client')
    .on('oauth_requests')
    .columns(['client_id', 'expires_at'])
    .execute();
  await db.schema.createIndex('oauth_grants_client').on('oauth_grants').column('client_id').execute();
  await db.schema.createIndex('oauth_clients_created').on('oauth_clients').columns(['kind', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of [
    'oauth_clients_created',
    'oauth_grants_client',
    'oauth_requests_client',
    'oauth_requests_expires',
  ]) {
    await db.schema.dropIndex(name).execute();
  }
}
