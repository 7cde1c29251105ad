// Agent routes for conversations: one per (cell, participant), by latest activity.
import { Type } from 'typebox';
import { agentOf } from '../../http/auth.ts';
import { PaginationQuery } from '../../http/pagination.ts';
import type { App } from '../../http/types.ts';
import { CellParams, IncludeIgnored, PhoneInput } from './schemas.ts';
import type { MessagesService } from './service.ts';
import { ConversationList, ConversationWithMessages, MessageList } from './views.ts';
import { Described, IdParam } from '../../http/schemas.ts';

export function registerConversationRoutes(app: App, messages: MessagesService): void {
  app.get(
    '/v1/conversations/between',
    {
      config: { auth: 'agent', scope: 'messages:read', errors: ['not_found'] },
      schema: {
        operationId: 'getConversationBetween',
        tags: ['Conversations'],
        summary: 'The conversation between a cell and a participant',
        description:
          'The conversation and its latest 50 messages (newest first); 404 when they have never exchanged a message.',
        querystring: Type.Object({ cell_id: Type.String({ minLength: 1, maxLength: 64 }), participant: PhoneInput }),
        response: {
          200: Described(ConversationWithMessages, 'The conversation and its latest 50 messages, newest first.'),
        },
      },
    },
    async (request) =>
      messages.between(agentOf(request).organizationId, request.query.cell_id, request.query.participant),
  );

  app.get(
    '/v1/cells/:cell_id/conversations',
    {
      config: { auth: 'agent', scope: 'messages:read' },
      schema: {
        operationId: 'listConversations',
        tags: ['Conversations'],
        summary: 'List conversations of a cell',
        description: 'Latest activity first.',
        params: CellParams,
        querystring: Type.Object({ ...PaginationQuery, ...IncludeIgnored }),
        response: { 200: Described(ConversationList, 'A page of conversations, latest activity first.') },
      },
    },
    async (request) =>
      messages.listConversations(agentOf(request).organizationId, request.params.cell_id, request.query),
  );

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
