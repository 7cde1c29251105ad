// The OAuth 2.0 authorization server (contract §8): clients (registered, or cached Client ID
// Metadata Documents), authorization requests with their single-use codes, grants, and the
// tokens issued under each grant. Secrets, codes and tokens are stored only as SHA-256 hashes.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oauth_clients')
    // ocl_... for registered clients; the https URL itself for a Client ID Metadata Document.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull()) // registered | metadata_document
    .addColumn('secret_hash', 'text')
    .addColumn('token_endpoint_auth_method', 'text', (c) => c.notNull())
    .addColumn('client_name', 'text')
    .addColumn('client_uri', 'text')
    .addColumn('redirect_uris', 'text', (c) => c.notNull()) // JSON array
    .addColumn('grant_types', 'text', (c) => c.notNull()) // JSON array
    .addColumn('scope', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    // A metadata document is fetched again after this; null for registered clients.
    .addColumn('expires_at', 'text')
    .execute();

  await db.schema
    .createTable('oauth_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('oauth_clients.id'))
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('state', 'text')
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull()) // pending | approved | denied
    // The organization that decided it (the only one that may see it afterwards).
    .addColumn('organization_id', 'text', (c) => c.references('organizations.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('decided_at', 'text')
    .addColumn('code_hash', 'text')
    .addColumn('code_expires_at', 'text')
    .addColumn('code_used_at', 'text')
    // The grant the code was exchanged for: revoked when the code is presented again.
    .addColumn('grant_id', 'text')
    .execute();
  await db.schema.createIndex('oauth_requests_code').unique().on('oauth_requests').column('code_hash').execute();

  await db.schema
    .createTable('oauth_grants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('client_id', 'text', (c) => c.notNull().references('oauth_clients.id'))
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('revoked_reason', 'text')
    .execute();
  await db.schema
    .createIndex('oauth_grants_organization')
    .on('oauth_grants')
    .columns(['organization_id', 'id'])
    .execute();

  await db.schema
    .createTable('oauth_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull()) // access | refresh
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text', (c) => c.notNull().references('oauth_grants.id'))
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    // A refresh token exchanged for a new pair; presented again, it revokes the grant.
    .addColumn('used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('oauth_tokens_hash').unique().on('oauth_tokens').column('token_hash').execute();
  await db.schema.createIndex('oauth_tokens_grant').on('oauth_tokens').column('grant_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oauth_tokens').execute();
  await db.schema.dropTable('oauth_grants').execute();
  await db.schema.dropTable('oauth_requests').execute();
  await db.schema.dropTable('oauth_clients').execute();
}
