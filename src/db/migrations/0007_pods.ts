// Pods (sender pools of cells; membership is cells.pod_id), drafts, contact lists, ignored
// participants, and cycle jobs with one row per message they plan (a hop of a ring, a recipient of
// a broadcast). Job items are the work queue of the cycle worker: a job is claimed with a lease,
// and each item moves pending → queued in the transaction that queues its message, so a message
// is created once per item whatever the number of processes or restarts.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('pods')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    // SHA-256 of the canonical create body: a client_id repeat with another body is a conflict.
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    // Round-robin position for pod draft sends without a sticky cell.
    .addColumn('rotation', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  // client_id is unique per organization forever, deleted pods included.
  await db.schema.createIndex('pods_client_id').unique().on('pods').columns(['organization_id', 'client_id']).execute();
  await db.schema.createIndex('pods_organization').on('pods').columns(['organization_id', 'id']).execute();
  await db.schema.createIndex('cells_pod').on('cells').columns(['pod_id', 'id']).execute();

  await db.schema
    .createTable('drafts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    // Exactly one of cell_id and pod_id: the scope the draft was created under.
    .addColumn('cell_id', 'text')
    .addColumn('pod_id', 'text')
    .addColumn('to_number', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('media_urls', 'text', (c) => c.notNull()) // JSON array
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('drafts_client_id')
    .unique()
    .on('drafts')
    .columns(['organization_id', 'client_id'])
    .execute();
  await db.schema.createIndex('drafts_cell').on('drafts').columns(['cell_id', 'id']).execute();
  await db.schema.createIndex('drafts_pod').on('drafts').columns(['pod_id', 'id']).execute();

  await db.schema
    .createTable('contact_lists')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('cell_id', 'text')
    .addColumn('pod_id', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('number_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('contact_lists_cell').on('contact_lists').columns(['cell_id', 'id']).execute();
  await db.schema.createIndex('contact_lists_pod').on('contact_lists').columns(['pod_id', 'id']).execute();
  await db.schema
    .createTable('contact_list_numbers')
    .addColumn('list_id', 'text', (c) => c.notNull())
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('contact_list_numbers_pk', ['list_id', 'number'])
    .execute();

  await db.schema
    .createTable('ignored_participants')
    // A cell id or a pod id: the scope the participant is ignored in.
    .addColumn('scope_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('participant', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('ignored_participants_pk', ['scope_id', 'participant'])
    .execute();
  // Inbound messages look a sender up here: one probe per upload.
  await db.schema
    .createIndex('ignored_participants_sender')
    .on('ignored_participants')
    .columns(['organization_id', 'participant'])
    .execute();

  await db.schema
    .createTable('cycle_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('pod_id', 'text', (c) => c.notNull())
    // Optional; unique per organization forever (NULLs never collide in a unique index).
    .addColumn('client_id', 'text')
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    // The claim of the worker advancing the job (any process): token and end of the lease.
    .addColumn('lease_token', 'text')
    .addColumn('lease_until', 'text')
    // Where the next pass over in-flight items starts (their seq), so each pass reads a window.
    .addColumn('sync_after', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute();
  await db.schema
    .createIndex('cycle_jobs_client_id')
    .unique()
    .on('cycle_jobs')
    .columns(['organization_id', 'client_id'])
    .execute();
  await db.schema.createIndex('cycle_jobs_pod').on('cycle_jobs').columns(['pod_id', 'id']).execute();
  await db.schema.createIndex('cycle_jobs_open').on('cycle_jobs').columns(['status', 'lease_until']).execute();

  await db.schema
    .createTable('cycle_job_items')
    .addColumn('job_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    // The sending cell and its number: fixed for a ring hop, chosen when a broadcast item is queued.
    .addColumn('cell_id', 'text')
    .addColumn('sender', 'text')
    // Ring: the cell that must receive the hop.
    .addColumn('to_cell_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text')
    .addColumn('error_code', 'text')
    .addColumn('queued_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('cycle_job_items_pk', ['job_id', 'seq'])
    .execute();
  // One item per distinct recipient of a job.
  await db.schema
    .createIndex('cycle_job_items_recipient')
    .unique()
    .on('cycle_job_items')
    .columns(['job_id', 'recipient'])
    .execute();
  await db.schema
    .createIndex('cycle_job_items_status')
    .on('cycle_job_items')
    .columns(['job_id', 'status', 'seq'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'cycle_job_items',
    'cycle_jobs',
    'ignored_participants',
    'contact_list_numbers',
    'contact_lists',
    'drafts',
    'pods',
  ]) {
    await db.schema.dropTable(table).execute();
  }
  await db.schema.dropIndex('cells_pod').execute();
}
