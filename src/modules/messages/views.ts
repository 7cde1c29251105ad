// The public shapes of messages and conversations (contract §4) and their response schemas.
import { Type } from 'typebox';
import { pageOf } from '../../http/pagination.ts';
import { Nullable, Timestamp } from '../../http/schemas.ts';
import { countSegments } from '../../lib/segments.ts';
import { MESSAGE_STATUSES } from './lifecycle.ts';
import type { ConversationsTable, MessagesTable } from './tables.ts';

export const MESSAGE_EXAMPLE = {
  id: 'msg_01jdx3a1b2c3d4e5f6g7h8j9k0',
  cell_id: 'cell_01jdx2b7c8d9e0f1g2h3j4k5m6',
  conversation_id: 'conv_01jdx3a0z9y8x7w6v5t4s3r2q1',
  direction: 'outbound',
  from: '+14155550123',
  to: '+14155550199',
  body: 'Your table for two is ready.',
  media_urls: [],
  status: 'queued',
  segments: 1,
  error: null,
  reply_to_message_id: null,
  ignored: false,
  created_at: '2026-11-21T12:00:00.000Z',
  updated_at: '2026-11-21T12:00:00.000Z',
  sent_at: null,
  delivered_at: null,
  received_at: null,
  code: null,
  send_at: null,
  schedule_reason: null,
};

export const Message = Type.Object(
  {
    id: Type.String({ description: 'msg_... id' }),
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
    ignored: Type.Boolean({
      description:
        'Inbound from an ignored participant: stored, but no event or webhook, and left out of listings unless include_ignored=true.',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
    sent_at: Nullable(Timestamp),
    delivered_at: Nullable(Timestamp),
    received_at: Nullable(Timestamp),
    send_at: Nullable({
      ...Timestamp,
      description: 'When a scheduled message goes out (is queued and charged); null for a message never scheduled.',
    }),
    schedule_reason: Nullable(
      Type.Enum(['send_at', 'quiet_hours'], {
        description:
          'Why the message is scheduled: send_at (asked for) or quiet_hours (the cell or pod is in its quiet hours until send_at).',
      }),
    ),
    code: Nullable(
      Type.String({
        description:
          'Inbound: the one-time (verification) code found in the text, else null; also listed by GET /v1/cells/{cell_id}/codes.',
      }),
    ),
  },
  {
    $id: 'Message',
    description:
      'An SMS/MMS of a cell. Outbound: scheduled (until send_at), queued, sending, sent, delivered, or failed / canceled. Inbound: received.',
    examples: [MESSAGE_EXAMPLE],
  },
);

/** A message as handed to a device: the message and the end of the device's lease on it. */
export const LeasedMessage = Type.Object(
  { ...Message.properties, lease_expires_at: Nullable(Timestamp) },
  {
    $id: 'LeasedMessage',
    description:
      'A message leased to the device to send: report on it before lease_expires_at, or it is handed out again.',
    examples: [{ ...MESSAGE_EXAMPLE, status: 'sending', lease_expires_at: '2026-11-21T12:02:00.000Z' }],
  },
);

const CONVERSATION_EXAMPLE = {
  id: 'conv_01jdx3a0z9y8x7w6v5t4s3r2q1',
  cell_id: 'cell_01jdx2b7c8d9e0f1g2h3j4k5m6',
  participant: '+14155550199',
  last_message_at: '2026-11-21T12:00:00.000Z',
  last_message_id: 'msg_01jdx3a1b2c3d4e5f6g7h8j9k0',
  created_at: '2026-11-21T11:59:00.000Z',
  updated_at: '2026-11-21T12:00:00.000Z',
};

export const Conversation = Type.Object(
  {
    id: Type.String({ description: 'conv_... id' }),
    cell_id: Type.String(),
    participant: Type.String({ description: 'The other party, E.164.' }),
    last_message_at: Timestamp,
    last_message_id: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    $id: 'Conversation',
    description: 'The exchange of one cell with one participant number.',
    examples: [CONVERSATION_EXAMPLE],
  },
);

/** List responses of messages and conversations. */
export const MessageList = pageOf('messages', Message, 'MessageList', 'A page of messages.', MESSAGE_EXAMPLE);

export const ConversationList = pageOf(
  'conversations',
  Conversation,
  'ConversationList',
  'A page of conversations.',
  CONVERSATION_EXAMPLE,
);

export const ConversationWithMessages = Type.Object(
  { conversation: Conversation, messages: Type.Array(Message) },
  {
    $id: 'ConversationWithMessages',
    description: 'A conversation and its latest messages, newest first.',
    examples: [{ conversation: CONVERSATION_EXAMPLE, messages: [MESSAGE_EXAMPLE] }],
  },
);

export type MessageView = ReturnType<typeof messageView>;

type NewMessage = Pick<
  MessagesTable,
  | 'id'
  | 'organization_id'
  | 'cell_id'
  | 'conversation_id'
  | 'direction'
  | 'from_number'
  | 'to_number'
  | 'body'
  | 'status'
  | 'created_at'
> &
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
    code: null,
    code_service: null,
    send_at: null,
    schedule_reason: null,
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
    ignored: row.ignored === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
    sent_at: row.sent_at,
    delivered_at: row.delivered_at,
    received_at: row.received_at,
    send_at: row.send_at,
    schedule_reason: row.schedule_reason,
    code: row.code,
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
