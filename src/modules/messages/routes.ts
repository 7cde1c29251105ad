// Agent routes for messages (contract §4 and the interface's send route).
import { Type } from 'typebox';
import { agentOf } from '../../http/auth.ts';
import { Body, Described } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { ListMessagesQuery, type MessageOperations } from './operations.ts';
import { CellParams, MediaUrls, MessageBody, MessageParams, normalizePhoneField, PhoneInput } from './schemas.ts';
import type { MessagesService } from './service.ts';
import { Message, MessageList } from './views.ts';

const SendRequest = Body(
  { to: PhoneInput, body: MessageBody, media_urls: Type.Optional(MediaUrls) },
  { examples: [{ to: '+14155550199', body: 'Your table for two is ready.' }] },
);
const ReplyRequest = Body(
  { body: MessageBody, media_urls: Type.Optional(MediaUrls) },
  { examples: [{ body: 'Thanks, see you at 8.' }] },
);

export function registerMessageRoutes(
  app: App,
  messages: MessagesService,
  rest: RestBinder,
  ops: MessageOperations,
): void {
  rest.bind(app, ops.sendMessage, {
    method: 'POST',
    url: '/v1/cells/:cell_id/messages/send',
    tags: ['Messages'],
    preValidation: normalizePhoneField('to'),
    params: CellParams,
    body: SendRequest,
    response: Described(Message, 'The queued message; message.sent and message.delivered events follow.'),
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
    response: Described(Message, 'The queued reply.'),
  });

  app.post(
    '/v1/cells/:cell_id/messages/:message_id/cancel',
    {
      config: { auth: 'agent', scope: 'messages:send', errors: ['conflict'] },
      schema: {
        operationId: 'cancelMessage',
        tags: ['Messages'],
        summary: 'Cancel a queued message',
        description: 'Only while the message is queued; afterwards 409 conflict.',
        params: MessageParams,
        response: { 200: Described(Message, 'The canceled message.') },
      },
    },
    async (request) =>
      messages.cancel(agentOf(request).organizationId, request.params.cell_id, request.params.message_id),
  );
}
