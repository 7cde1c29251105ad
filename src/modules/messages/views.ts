// The public shapes of messages and conversations (contract §4) and their response schemas.
import { Type } from 'typebox';
import { Nullable, Timestamp } from '../../http/schemas.ts';
import { countSegments } from '../../lib/segments.ts';
import type { ConversationsTable, MessagesTable } from './tables.ts';

export const MESSAGE_STATUSES = ['queued', 'sending', 'sent', 'delivered', 'failed', 'canceled', 'received'] as const;

export const Message = Type.Object({
  id: Type.String(),
  cell_id: Type.String(),
  conversation_id: Type.String(),
  direction: Type.Enum(['outbound', 'inbound']),
  from: Type.String({ description: 'E.164' }),
  to: Type.String({ description: 'E.164' }),
  body: Type.String(),
  media_urls: Type.Array(Type.String()),
  status: Type.Enum([...MESSAGE_STATUSES]),
  segments: Type.Integer({ description: 'SMS segments: GSM-7 160/153 per part, UCS-2 70/67.' }),
  error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
  reply_to_message_id: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
  sent_at: Nullable(Timestamp),
  delivered_at: Nullable(Timestamp),
  received_at: Nullable(Timestamp),
});

/** A message as handed to a device: the message and the end of the device's lease on it. */
export const LeasedMessage = Type.Object({ ...Message.properties, lease_expires_at: Nullable(Timestamp) });

export const Conversation = Type.Object({
  id: Type.String(),
  cell_id: Type.String(),
  participant: Type.String({ description: 'The other party, E.164.' }),
  last_message_at: Timestamp,
  last_message_id: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export type MessageView = ReturnType<typeof messageView>;

type NewMessage = Pick<MessagesTable, 'id' | 'organization_id' | 'cell_id' | 'conversation_id' | 'direction' | 'from_number' | 'to_number' | 'body' | 'status' | 'created_at'> &
  Partial<MessagesTable> & { mediaUrls?: string[] };

/** A new message row: segments from the body, media as JSON, everything not given empty. */
export function newMessageRow({ mediaUrls, ...fields }: NewMessage): MessagesTable {
  return {
    media_urls: JSON.stringify(mediaUrls ?? []),
    segments: countSegments(fields.body).segments,
    error_code: null,
    error_message: null,
    reply_to_message_id: null,
    ignored: 0,
    device_id: null,
    lease_expires_at: null,
    attempts: 0,
    claimed_at: null,
    expires_at: null,
    device_message_id: null,
    updated_at: fields.created_at,
    sent_at: null,
    delivered_at: null,
    received_at: null,
    failed_at: null,
    ...fields,
  };
}

export function messageView(row: MessagesTable) {
  return {
    id: row.id,
    cell_id: row.cell_id,
    conversation_id: row.conversation_id,
    direction: row.direction,
    from: row.from_number,
    to: row.to_number,
    body: row.body,
    media_urls: JSON.parse(row.media_urls) as string[],
    status: row.status,
    segments: row.segments,
    error: row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? '' },
    reply_to_message_id: row.reply_to_message_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    sent_at: row.sent_at,
    delivered_at: row.delivered_at,
    received_at: row.received_at,
  };
}

export function leasedMessageView(row: MessagesTable) {
  return { ...messageView(row), lease_expires_at: row.lease_expires_at };
}

export function conversationView(row: ConversationsTable) {
  return {
    id: row.id,
    cell_id: row.cell_id,
    participant: row.participant,
    last_message_at: row.last_message_at,
    last_message_id: row.last_message_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
