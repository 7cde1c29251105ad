// Agent routes for messages (contract §4 and the interface's send route).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { restRoutes } from '../../operations/rest-routes.ts';
import type { MessageOperations } from './operations.ts';
import { normalizePhoneField } from './schemas.ts';
import { PACE_DOC, setPaceHeaders } from './pace.ts';
import type { MessagesService } from './service.ts';
import type { MessageView } from './views.ts';

export function registerMessageRoutes(
  app: App,
  messages: MessagesService,
  rest: RestBinder,
  ops: MessageOperations,
): void {
  // The pace its transaction read: nothing is read after the commit (issue 33 §11).
  const pace = async (_request: FastifyRequest, reply: FastifyReply, message: MessageView) =>
    setPaceHeaders(reply, messages.paceOf(message));
  const bind = restRoutes(app, rest, ['Messages']);
  const one = '/v1/cells/:cell_id/messages/:message_id';
  const sent = 'The queued (or scheduled) message; message.sent and message.delivered events follow.';
  bind(ops.sendMessage, 'POST', '/v1/cells/:cell_id/messages/send', sent, {
    preValidation: normalizePhoneField('to'),
    description: ops.sendMessage.description + PACE_DOC,
    after: pace,
  });
  bind(ops.listMessages, 'GET', '/v1/cells/:cell_id/messages', 'A page of messages, newest first.');
  bind(ops.getMessage, 'GET', one, 'The message.');
  bind(ops.replyToMessage, 'POST', `${one}/reply`, 'The queued reply.', {
    description: ops.replyToMessage.description + PACE_DOC,
    after: pace,
  });
  bind(ops.cancelMessage, 'POST', `${one}/cancel`, 'The canceled message.');
}
