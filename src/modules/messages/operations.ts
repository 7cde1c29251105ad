// Messages' and conversations' operations (src/operations): bound to REST routes here and to MCP
// tools in src/modules/mcp.
import { Type } from 'typebox';
import { PaginationQuery } from '../../http/pagination.ts';
import { IdField, Timestamp } from '../../http/schemas.ts';
import { normalizePhone } from '../../lib/phone.ts';
import { defineOperation } from '../../operations/operation.ts';
import { MESSAGE_STATUSES } from './lifecycle.ts';
import { IncludeIgnored, MediaUrls, MessageBody, PhoneInput, ScheduleFields } from './schemas.ts';
import type { MessagesService } from './service.ts';
import { ConversationList, ConversationWithMessages, Message, MESSAGE_EXAMPLE, MessageList } from './views.ts';

const ListMessagesQuery = Type.Object({
  ...PaginationQuery,
  direction: Type.Optional(Type.Enum(['outbound', 'inbound'])),
  status: Type.Optional(Type.Enum([...MESSAGE_STATUSES])),
  participant: Type.Optional({ ...PhoneInput, description: 'Only messages to or from this number (E.164).' }),
  since: Type.Optional({ ...Timestamp, description: 'Only messages created at or after this time.' }),
  ...IncludeIgnored,
});

const ConversationsQuery = { ...PaginationQuery, ...IncludeIgnored };

const BetweenQuery = Type.Object({
  cell_id: Type.String({ minLength: 1, maxLength: 64 }),
  participant: PhoneInput,
  ...IncludeIgnored,
});

const CellId = { cell_id: IdField('cell') };
const MessageIds = { ...CellId, message_id: IdField('msg') };

const SEND_ERRORS = [
  'cell_not_active',
  'recipient_opted_out',
  'mms_unsupported',
  'payment_required',
  'conflict',
] as const;

/** A valid number in E.164, so "+1 415 555 0123" and "+14155550123" are the same call for an idempotency key; an invalid one is left for the rules to refuse. */
const normalizedTo = <T extends { to: string }>(input: T): T => ({
  ...input,
  to: normalizePhone(input.to) ?? input.to,
});

export function messageOperations(messages: MessagesService) {
  return {
    sendMessage: defineOperation({
      name: 'send_message',
      summary: 'Send a message',
      description:
        "Queues an SMS/MMS from the cell; its device sends it. Answers 202 with the queued message, or the scheduled one: with send_at, or inside the cell's quiet hours (then until their end, unless send_now). Takes an optional Idempotency-Key header.",
      scope: 'messages:send',
      idempotency: 'optional',
      recorded: true,
      status: 202,
      errors: [...SEND_ERRORS],
      input: Type.Object(
        {
          ...CellId,
          to: PhoneInput,
          body: MessageBody,
          media_urls: Type.Optional(MediaUrls),
          ...ScheduleFields,
        },
        {
          additionalProperties: false,
          examples: [{ cell_id: MESSAGE_EXAMPLE.cell_id, to: '+14155550199', body: 'Your table for two is ready.' }],
        },
      ),
      output: Message,
      prepare: normalizedTo,
      run: (ctx, { cell_id, send_at, send_now, ...input }) =>
        messages.send(ctx.organizationId, cell_id, input, { record: ctx.record, schedule: { send_at, send_now } }),
    }),
    replyToMessage: defineOperation({
      name: 'reply_to_message',
      summary: 'Reply to a message',
      description:
        'Sends to the other party of the message. Answers 202 with the queued (or scheduled: send_at, quiet hours) reply. Takes an optional Idempotency-Key header.',
      scope: 'messages:send',
      idempotency: 'optional',
      recorded: true,
      status: 202,
      errors: [...SEND_ERRORS],
      input: Type.Object(
        { ...MessageIds, body: MessageBody, media_urls: Type.Optional(MediaUrls), ...ScheduleFields },
        {
          additionalProperties: false,
          examples: [
            { cell_id: MESSAGE_EXAMPLE.cell_id, message_id: MESSAGE_EXAMPLE.id, body: 'Thanks, see you at 8.' },
          ],
        },
      ),
      output: Message,
      run: (ctx, { cell_id, message_id, ...input }) =>
        messages.reply(ctx.organizationId, cell_id, message_id, input, ctx.record),
    }),
    listMessages: defineOperation({
      name: 'list_messages',
      summary: 'List messages of a cell',
      description: 'Newest first. Filters: direction, status, participant, since.',
      scope: 'messages:read',
      idempotency: 'none',
      input: Type.Object({ ...CellId, ...ListMessagesQuery.properties }),
      output: MessageList,
      run: (ctx, { cell_id, ...query }) => messages.list(ctx.organizationId, cell_id, query),
    }),
    listConversations: defineOperation({
      name: 'list_conversations',
      summary: 'List conversations of a cell',
      description: 'Latest activity first.',
      scope: 'messages:read',
      idempotency: 'none',
      input: Type.Object({ ...CellId, ...ConversationsQuery }),
      output: ConversationList,
      run: (ctx, { cell_id, ...query }) => messages.listConversations(ctx.organizationId, cell_id, query),
    }),
    getConversation: defineOperation({
      name: 'get_conversation',
      summary: 'The conversation between a cell and a participant',
      description:
        'The conversation and its latest 50 messages (newest first); 404 when they have never exchanged a message.',
      scope: 'messages:read',
      idempotency: 'none',
      errors: ['not_found'],
      input: BetweenQuery,
      output: ConversationWithMessages,
      run: (ctx, input) =>
        messages.between(ctx.organizationId, input.cell_id, input.participant, input.include_ignored ?? false),
    }),
    getMessage: defineOperation({
      name: 'get_message',
      summary: 'Read a message',
      description: '',
      scope: 'messages:read',
      idempotency: 'none',
      input: Type.Object(MessageIds, { additionalProperties: false }),
      output: Message,
      run: (ctx, input) => messages.get(ctx.organizationId, input.cell_id, input.message_id),
    }),
    listConversationMessages: defineOperation({
      name: 'list_conversation_messages',
      summary: 'List messages of a conversation',
      description: 'Newest first.',
      scope: 'messages:read',
      idempotency: 'none',
      input: Type.Object(
        { ...CellId, conversation_id: IdField('conv'), ...ConversationsQuery },
        { additionalProperties: false },
      ),
      output: MessageList,
      run: (ctx, { cell_id, conversation_id, ...query }) =>
        messages.listConversationMessages(ctx.organizationId, cell_id, conversation_id, query),
    }),
    cancelMessage: defineOperation({
      name: 'cancel_message',
      summary: 'Cancel a scheduled or queued message',
      // A queued message's charge is refunded (billing's hook); a scheduled one was not charged yet.
      description: 'Only while the message is scheduled or queued; afterwards 409 conflict.',
      scope: 'messages:send',
      idempotency: 'none',
      errors: ['not_found', 'conflict'],
      input: Type.Object(MessageIds, { additionalProperties: false }),
      output: Message,
      run: (ctx, input) => messages.cancel(ctx.organizationId, input.cell_id, input.message_id),
    }),
  };
}

export type MessageOperations = ReturnType<typeof messageOperations>;
