// MCP Tasks (issue 26 §3): a wait called as a task is a row, not a process's memory, so any
// process answers tasks/get, tasks/result and tasks/cancel for it. A task is the wait's arguments
// (its `since` fixed at creation) and a deadline; its answer is stored once it settles. Rows
// expire (expires_at = created_at + ttl) and are pruned; the owner is the organization and the
// credential (API key, or OAuth client) that created it.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mcp_tasks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('tool', 'text', (c) => c.notNull())
    .addColumn('arguments', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_message', 'text')
    .addColumn('result', 'text')
    .addColumn('ttl_ms', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deadline_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('mcp_tasks_owner')
    .on('mcp_tasks')
    .columns(['organization_id', 'owner', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('mcp_tasks_expires').on('mcp_tasks').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('mcp_tasks').execute();
}
