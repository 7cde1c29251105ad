// Agent routes for messages (contract §4 and the interface's send route).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { agentOf } from '../../http/auth.ts';
import { Body, Described } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { ListMessagesQuery, type MessageOperations } from './operations.ts';
import {
  CellParams,
  MediaUrls,
  MessageBody,
  MessageParams,
  normalizePhoneField,
  PhoneInput,
  ScheduleFields,
} from './schemas.ts';
import type { MessagesService } from './service.ts';
import { Message, MessageList } from './views.ts';

const SendRequest = Body(
  { to: PhoneInput, body: MessageBody, media_urls: Type.Optional(MediaUrls), ...ScheduleFields },
  { examples: [{ to: '+14155550199', body: 'Your table for two is ready.' }] },
);
const ReplyRequest = Body(
  { body: MessageBody, media_urls: Type.Optional(MediaUrls), ...ScheduleFields },
  { examples: [{ body: 'Thanks, see you at 8.' }] },
);

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

export function registerMessageRoutes(
  app: App,
  messages: MessagesService,
  rest: RestBinder,
  ops: MessageOperations,
): void {
  const pace = (request: FastifyRequest, reply: FastifyReply) =>
    paceHeaders(messages, (request.params as { cell_id: string }).cell_id, reply);
  rest.bind(app, ops.sendMessage, {
    method: 'POST',
    url: '/v1/cells/:cell_id/messages/send',
    tags: ['Messages'],
    preValidation: normalizePhoneField('to'),
    params: CellParams,
    body: SendRequest,
    description: ops.sendMessage.description + PACE_DOC,
    response: Described(
      Message,
      'The queued (or scheduled) message; message.sent and message.delivered events follow.',
    ),
    after: pace,
  });

  rest.bind(app, ops.listMessages, {
    method: 'GET',
    url: '/v1/cells/:cell_id/messages',
    tags: ['Messages'],
    params: CellParams,
    querystring: ListMessagesQuery,
    response: Described(MessageList, 'A page of messages, newest first.'),
  });

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

  rest.bind(app, ops.replyToMessage, {
    method: 'POST',
    url: '/v1/cells/:cell_id/messages/:message_id/reply',
    tags: ['Messages'],
    params: MessageParams,
    body: ReplyRequest,
    description: ops.replyToMessage.description + PACE_DOC,
    response: Described(Message, 'The queued reply.'),
    after: pace,
  });

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
