// Agent routes for conversations: one per (cell, participant), by latest activity.
import { Type } from 'typebox';
import { agentOf } from '../../http/auth.ts';
import { PaginationQuery } from '../../http/pagination.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { BetweenQuery, ConversationsQuery, type MessageOperations } from './operations.ts';
import { CellParams, IncludeIgnored } from './schemas.ts';
import type { MessagesService } from './service.ts';
import { ConversationList, ConversationWithMessages, MessageList } from './views.ts';
import { Described, IdParam } from '../../http/schemas.ts';

export function registerConversationRoutes(
  app: App,
  messages: MessagesService,
  rest: RestBinder,
  ops: MessageOperations,
): void {
  rest.bind(app, ops.getConversation, {
    method: 'GET',
    url: '/v1/conversations/between',
    operationId: 'getConversationBetween',
    tags: ['Conversations'],
    querystring: BetweenQuery,
    response: Described(ConversationWithMessages, 'The conversation and its latest 50 messages, newest first.'),
  });

  rest.bind(app, ops.listConversations, {
    method: 'GET',
    url: '/v1/cells/:cell_id/conversations',
    tags: ['Conversations'],
    params: CellParams,
    querystring: Type.Object(ConversationsQuery),
    response: Described(ConversationList, 'A page of conversations, latest activity first.'),
  });

  app.get(
    '/v1/cells/:cell_id/conversations/:conversation_id/messages',
    {
      config: { auth: 'agent', scope: 'messages:read' },
      schema: {
        operationId: 'listConversationMessages',
        tags: ['Conversations'],
        summary: 'List messages of a conversation',
        description: 'Newest first.',
        params: Type.Object({ ...CellParams.properties, ...IdParam('conversation_id', 'conv').properties }),
        querystring: Type.Object({ ...PaginationQuery, ...IncludeIgnored }),
        response: { 200: Described(MessageList, 'A page of messages of the conversation, newest first.') },
      },
    },
    async (request) => {
      const { cell_id, conversation_id } = request.params;
      return messages.listConversationMessages(
        agentOf(request).organizationId,
        cell_id,
        conversation_id,
        request.query,
      );
    },
  );
}
