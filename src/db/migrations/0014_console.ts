// The console's sign-in (contract §3, issue 13): one-time codes mailed to an organization's email
// and the browser sessions they open. Codes and session tokens are stored only as SHA-256 hashes.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('console_codes')
    // One live code per organization: asking again replaces it.
    .addColumn('organization_id', 'text', (c) => c.primaryKey().references('organizations.id'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('console_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    // Sent back in every form of the session (synchronizer token); not a credential on its own.
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('console_sessions_expires').on('console_sessions').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('console_sessions').execute();
  await db.schema.dropTable('console_codes').execute();
}
