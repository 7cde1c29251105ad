// Administrative routes of the foundation: the dev mail outbox.
import { Type } from 'typebox';
import { NextCursor, PaginationQuery } from '../../http/pagination.ts';
import { Described, Timestamp } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { AdminService } from './service.ts';

const MAIL_EXAMPLE = {
  id: 'mail_01jdx2a1b2c3d4e5f6g7h8j9k0',
  to: 'agent@example.com',
  subject: 'Your Cellgate verification code',
  text: 'Your code is 482913. It expires in 10 minutes.',
  created_at: '2026-11-21T12:00:00.000Z',
};

const OutboxMail = Type.Object(
  {
    id: Type.String(),
    to: Type.String(),
    subject: Type.String(),
    text: Type.String(),
    created_at: Timestamp,
  },
  { $id: 'OutboxMail', description: 'A mail the dev mailer kept instead of sending it.', examples: [MAIL_EXAMPLE] },
);

const OutboxMailList = Type.Object(
  { messages: Type.Array(OutboxMail), next_cursor: NextCursor },
  {
    $id: 'OutboxMailList',
    description: 'A page of kept mail.',
    examples: [{ messages: [MAIL_EXAMPLE], next_cursor: null }],
  },
);

export function registerAdminRoutes(app: App, admin: AdminService): void {
  app.get(
    '/v1/admin/outbox',
    {
      config: { auth: 'admin' },
      schema: {
        operationId: 'listOutboxMail',
        tags: ['Admin'],
        summary: 'Mail kept by the dev mailer (when no SMTP server is configured)',
        querystring: Type.Object({ ...PaginationQuery, to: Type.Optional(Type.String({ maxLength: 254 })) }),
        response: { 200: Described(OutboxMailList, 'A page of kept mail, newest first.') },
      },
    },
    async (request) => admin.listMail(request.query.to, request.query),
  );
}
