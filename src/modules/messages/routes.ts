// Agent routes for messages (contract §4 and the interface's send route).
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { agentOf } from '../../http/auth.ts';
import { IdempotencyKeyHeaders, recordedResponse } from '../../http/idempotency.ts';
import { PaginationQuery } from '../../http/pagination.ts';
import { Body, Described, Timestamp } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import {
  CellParams,
  IncludeIgnored,
  MediaUrls,
  MessageBody,
  MessageParams,
  normalizePhoneField,
  PhoneInput,
  ScheduleFields,
} from './schemas.ts';
import type { MessagesService } from './service.ts';
import { MESSAGE_STATUSES } from './lifecycle.ts';
import { Message, MessageList } from './views.ts';

const SendRequest = Body(
  { to: PhoneInput, body: MessageBody, media_urls: Type.Optional(MediaUrls), ...ScheduleFields },
  { examples: [{ to: '+14155550199', body: 'Your table for two is ready.' }] },
);
const ReplyRequest = Body(
  { body: MessageBody, media_urls: Type.Optional(MediaUrls), ...ScheduleFields },
  { examples: [{ body: 'Thanks, see you at 8.' }] },
);

const ListQuery = Type.Object({
  ...PaginationQuery,
  direction: Type.Optional(Type.Enum(['outbound', 'inbound'])),
  status: Type.Optional(Type.Enum([...MESSAGE_STATUSES])),
  participant: Type.Optional({ ...PhoneInput, description: 'Only messages to or from this number (E.164).' }),
  since: Type.Optional({ ...Timestamp, description: 'Only messages created at or after this time.' }),
  ...IncludeIgnored,
});

/**
 * The RateLimit-* headers (IETF draft names) of the cell's pace on a send's answer (see
 * MessagesService.pace). The per-credential request limit (src/http/rate-limit.ts) sets the same
 * headers: the more restrictive of the two is advertised (fewer remaining; on a tie, the later reset).
 */
async function paceHeaders(messages: MessagesService, cellId: string, reply: FastifyReply): Promise<void> {
  const pace = await messages.pace(cellId);
  if (!pace) return;
  const remaining = reply.getHeader('RateLimit-Remaining');
  const reset = Number(reply.getHeader('RateLimit-Reset') ?? 0);
  if (remaining !== undefined) {
    const stricter =
      Number(remaining) < pace.remaining || (Number(remaining) === pace.remaining && reset >= pace.reset);
    if (stricter) return;
  }
  reply.header('RateLimit-Limit', String(pace.limit));
  reply.header('RateLimit-Remaining', String(pace.remaining));
  reply.header('RateLimit-Reset', String(pace.reset));
}

const PACE_DOC =
  " Answers carry RateLimit-Limit (the cell's phone's messages per minute), RateLimit-Remaining (more that would go out within the minute) and RateLimit-Reset (seconds until that grows).";

export function registerMessageRoutes(app: App, messages: MessagesService): void {
  app.post(
    '/v1/cells/:cell_id/messages/send',
    {
      config: {
        auth: 'agent',
        scope: 'messages:send',
        idempotent: 'recorded',
        errors: ['cell_not_active', 'recipient_opted_out', 'mms_unsupported', 'payment_required'],
      },
      preValidation: normalizePhoneField('to'),
      schema: {
        operationId: 'sendMessage',
        tags: ['Messages'],
        summary: 'Send a message',
        description:
          "Queues an SMS/MMS from the cell; its device sends it. Answers 202 with the queued message, or the scheduled one: with send_at, or inside the cell's quiet hours (then until their end, unless send_now). Takes an optional Idempotency-Key header." +
          PACE_DOC,
        params: CellParams,
        headers: IdempotencyKeyHeaders,
        body: SendRequest,
        response: {
          202: Described(
            Message,
            'The queued (or scheduled) message; message.sent and message.delivered events follow.',
          ),
        },
      },
    },
    async (request, reply) =>
      recordedResponse(request, reply, 202, async (record) => {
        const { send_at, send_now, ...input } = request.body;
        const message = await messages.send(agentOf(request).organizationId, request.params.cell_id, input, {
          record,
          schedule: { send_at, send_now },
        });
        await paceHeaders(messages, request.params.cell_id, reply);
        return message;
      }),
  );

  app.get(
    '/v1/cells/:cell_id/messages',
    {
      config: { auth: 'agent', scope: 'messages:read' },
      schema: {
        operationId: 'listMessages',
        tags: ['Messages'],
        summary: 'List messages of a cell',
        description: 'Newest first. Filters: direction, status, participant, since.',
        params: CellParams,
        querystring: ListQuery,
        response: { 200: Described(MessageList, 'A page of messages, newest first.') },
      },
    },
    async (request) => messages.list(agentOf(request).organizationId, request.params.cell_id, request.query),
  );

  app.get(
    '/v1/cells/:cell_id/messages/:message_id',
    {
      config: { auth: 'agent', scope: 'messages:read' },
      schema: {
        operationId: 'getMessage',
        tags: ['Messages'],
        summary: 'Read a message',
        params: MessageParams,
        response: { 200: Described(Message, 'The message.') },
      },
    },
    async (request) => messages.get(agentOf(request).organizationId, request.params.cell_id, request.params.message_id),
  );

  app.post(
    '/v1/cells/:cell_id/messages/:message_id/reply',
    {
      config: {
        auth: 'agent',
        scope: 'messages:send',
        idempotent: 'recorded',
        errors: ['cell_not_active', 'recipient_opted_out', 'mms_unsupported', 'payment_required'],
      },
      schema: {
        operationId: 'replyToMessage',
        tags: ['Messages'],
        summary: 'Reply to a message',
        description:
          'Sends to the other party of the message. Answers 202 with the queued (or scheduled: send_at, quiet hours) reply. Takes an optional Idempotency-Key header.' +
          PACE_DOC,
        params: MessageParams,
        headers: IdempotencyKeyHeaders,
        body: ReplyRequest,
        response: { 202: Described(Message, 'The queued reply.') },
      },
    },
    async (request, reply) => {
      const { cell_id, message_id } = request.params;
      return recordedResponse(request, reply, 202, async (record) => {
        const sent = await messages.reply(agentOf(request).organizationId, cell_id, message_id, request.body, record);
        await paceHeaders(messages, cell_id, reply);
        return sent;
      });
    },
  );

  app.post(
    '/v1/cells/:cell_id/messages/:message_id/cancel',
    {
      config: { auth: 'agent', scope: 'messages:send', errors: ['conflict'] },
      schema: {
        operationId: 'cancelMessage',
        tags: ['Messages'],
        summary: 'Cancel a scheduled or queued message',
        description: 'Only while the message is scheduled or queued; afterwards 409 conflict.',
        params: MessageParams,
        response: { 200: Described(Message, 'The canceled message.') },
      },
    },
    async (request) =>
      messages.cancel(agentOf(request).organizationId, request.params.cell_id, request.params.message_id),
  );
}
