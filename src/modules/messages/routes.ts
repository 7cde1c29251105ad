// Agent routes for messages (contract §4 and the interface's send route).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Described } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import type { MessageOperations } from './operations.ts';
import { normalizePhoneField } from './schemas.ts';
import { PACE_DOC, setPaceHeaders } from './pace.ts';
import type { MessagesService } from './service.ts';
import { Message, MessageList, type MessageView } from './views.ts';

export function registerMessageRoutes(
  app: App,
  messages: MessagesService,
  rest: RestBinder,
  ops: MessageOperations,
): void {
  // The pace its transaction read: nothing is read after the commit (issue 33 §11).
  const pace = async (_request: FastifyRequest, reply: FastifyReply, message: MessageView) =>
    setPaceHeaders(reply, messages.paceOf(message));
  rest.bind(app, ops.sendMessage, {
    method: 'POST',
    url: '/v1/cells/:cell_id/messages/send',
    tags: ['Messages'],
    preValidation: normalizePhoneField('to'),
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
    response: Described(MessageList, 'A page of messages, newest first.'),
  });

  rest.bind(app, ops.getMessage, {
    method: 'GET',
    url: '/v1/cells/:cell_id/messages/:message_id',
    tags: ['Messages'],
    response: Described(Message, 'The message.'),
  });

  rest.bind(app, ops.replyToMessage, {
    method: 'POST',
    url: '/v1/cells/:cell_id/messages/:message_id/reply',
    tags: ['Messages'],
    description: ops.replyToMessage.description + PACE_DOC,
    response: Described(Message, 'The queued reply.'),
    after: pace,
  });

  rest.bind(app, ops.cancelMessage, {
    method: 'POST',
    url: '/v1/cells/:cell_id/messages/:message_id/cancel',
    tags: ['Messages'],
    response: Described(Message, 'The canceled message.'),
  });
}
