// Agent routes for conversations: one per (cell, participant), by latest activity.
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { restRoutes } from '../../operations/rest-routes.ts';
import type { MessageOperations } from './operations.ts';

export function registerConversationRoutes(app: App, rest: RestBinder, ops: MessageOperations): void {
  const conversations = restRoutes(app, rest, ['Conversations']);
  const between = 'The conversation and its latest 50 messages, newest first.';
  conversations(ops.getConversation, 'GET', '/v1/conversations/between', between, {
    operationId: 'getConversationBetween',
  });
  const list = 'A page of conversations, latest activity first.';
  conversations(ops.listConversations, 'GET', '/v1/cells/:cell_id/conversations', list);
  const messages = 'A page of messages of the conversation, newest first.';
  conversations(
    ops.listConversationMessages,
    'GET',
    '/v1/cells/:cell_id/conversations/:conversation_id/messages',
    messages,
  );
}
