// The operator console's sessions (contract §11, issue 25 §1): an admin token signs in once and
// the browser holds a session of its own, never an organization's. Only the SHA-256 hash of the
// session token is stored; the admin token's id is kept so a revoked token ends its sessions.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('operator_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('admin_token_id', 'text', (c) => c.notNull())
    // Sent back in every form of the session (synchronizer token); not a credential on its own.
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('operator_sessions_expires').on('operator_sessions').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('operator_sessions').execute();
}
