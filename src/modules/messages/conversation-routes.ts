// Agent routes for conversations: one per (cell, participant), by latest activity.
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import type { MessageOperations } from './operations.ts';
import { ConversationList, ConversationWithMessages, MessageList } from './views.ts';
import { Described } from '../../http/schemas.ts';

export function registerConversationRoutes(app: App, rest: RestBinder, ops: MessageOperations): void {
  rest.bind(app, ops.getConversation, {
    method: 'GET',
    url: '/v1/conversations/between',
    operationId: 'getConversationBetween',
    tags: ['Conversations'],
    response: Described(ConversationWithMessages, 'The conversation and its latest 50 messages, newest first.'),
  });

  rest.bind(app, ops.listConversations, {
    method: 'GET',
    url: '/v1/cells/:cell_id/conversations',
    tags: ['Conversations'],
    response: Described(ConversationList, 'A page of conversations, latest activity first.'),
  });

  rest.bind(app, ops.listConversationMessages, {
    method: 'GET',
    url: '/v1/cells/:cell_id/conversations/:conversation_id/messages',
    tags: ['Conversations'],
    response: Described(MessageList, 'A page of messages of the conversation, newest first.'),
  });
}
