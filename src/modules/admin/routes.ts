// Administrative routes of the foundation: the dev mail outbox.
import { Type } from 'typebox';
import { NextCursor, PaginationQuery } from '../../http/pagination.ts';
import { Timestamp } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { AdminService } from './service.ts';

const OutboxMail = Type.Object({
  id: Type.String(),
  to: Type.String(),
  subject: Type.String(),
  text: Type.String(),
  created_at: Timestamp,
});

export function registerAdminRoutes(app: App, admin: AdminService): void {
  app.get('/v1/admin/outbox', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Admin'],
      summary: 'Mail kept by the dev mailer (when no SMTP server is configured)',
      querystring: Type.Object({ ...PaginationQuery, to: Type.Optional(Type.String({ maxLength: 254 })) }),
      response: { 200: Type.Object({ messages: Type.Array(OutboxMail), next_cursor: NextCursor }) },
    },
  }, async (request) => admin.listMail(request.query.to, request.query));
}
