// Messages, conversations (one per cell and participant), opt-outs and device event dedup.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('conversations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('cell_id', 'text', (c) => c.notNull())
    .addColumn('participant', 'text', (c) => c.notNull())
    .addColumn('last_message_id', 'text')
    .addColumn('last_message_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('conversations_cell_participant', ['cell_id', 'participant'])
    .execute();
  await db.schema
    .createIndex('conversations_activity')
    .on('conversations')
    .columns(['cell_id', 'last_message_at', 'id'])
    .execute();

  await db.schema
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('cell_id', 'text', (c) => c.notNull())
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('from_number', 'text', (c) => c.notNull())
    .addColumn('to_number', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('media_urls', 'text', (c) => c.notNull()) // JSON array
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('segments', 'integer', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('reply_to_message_id', 'text')
    .addColumn('ignored', 'integer', (c) => c.notNull().defaultTo(0))
    // Outbound delivery: the device holding the lease, until when, and how many leases so far.
    .addColumn('device_id', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('claimed_at', 'text') // last hand-out to a device: pacing counts these per device
    .addColumn('expires_at', 'text') // queued messages unclaimed by then become failed/expired
    // Inbound dedup: the phone's own id for the text it received.
    .addColumn('device_message_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .addColumn('delivered_at', 'text')
    .addColumn('received_at', 'text')
    .execute();
  await db.schema.createIndex('messages_cell_list').on('messages').columns(['cell_id', 'id']).execute();
  await db.schema.createIndex('messages_cell_status').on('messages').columns(['cell_id', 'status', 'id']).execute();
  await db.schema.createIndex('messages_conversation').on('messages').columns(['conversation_id', 'id']).execute();
  // Partial indexes hold only the rows their worker or check looks for, so a send (an insert of a
  // queued message) maintains as few B-trees as possible. Queries name the literal status.
  await db.schema
    .createIndex('messages_lease')
    .on('messages')
    .column('lease_expires_at')
    .where(sql.ref('status'), '=', 'sending')
    .execute();
  await db.schema
    .createIndex('messages_device_claims')
    .on('messages')
    .columns(['device_id', 'claimed_at'])
    .where(sql.ref('claimed_at'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('messages_expiry')
    .on('messages')
    .column('expires_at')
    .where(sql.ref('status'), '=', 'queued')
    .execute();
  await db.schema
    .createIndex('messages_inbound_dedup')
    .on('messages')
    .columns(['cell_id', 'device_message_id'])
    .unique()
    .where(sql.ref('device_message_id'), 'is not', null)
    .execute();

  await db.schema
    .createTable('opt_outs')
    .addColumn('cell_id', 'text', (c) => c.notNull())
    .addColumn('participant', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('opt_outs_pk', ['cell_id', 'participant'])
    .execute();

  await db.schema
    .createTable('device_events')
    .addColumn('device_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('device_events_pk', ['device_id', 'event_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['device_events', 'opt_outs', 'messages', 'conversations'])
    await db.schema.dropTable(table).execute();
}
