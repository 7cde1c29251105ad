// GET /v1/cells/{cell_id}/codes (contract §12): the cell's verification codes, newest first, with
// an optional long-poll for the first code after `since`.
import { Type } from 'typebox';
import { agentOf } from '../../http/auth.ts';
import type { ConnectionCap } from '../../http/connection-caps.ts';
import { NextCursor, PaginationQuery } from '../../http/pagination.ts';
import { Described, Nullable, Timestamp } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { CellParams } from '../messages/schemas.ts';
import { MAX_WAIT_S, type CodesService } from './service.ts';

const CODE_EXAMPLE = {
  code: '482913',
  message_id: 'msg_01jdx3a1b2c3d4e5f6g7h8j9k0',
  from: '+14155550123',
  service: 'Google',
  received_at: '2026-11-21T12:00:00.000Z',
};

export const Code = Type.Object(
  {
    code: Type.String({ description: 'The one-time code, as the text gave it (digits, or letters and digits).' }),
    message_id: Type.String({ description: 'The inbound message (msg_...) that carried it.' }),
    from: Type.String({ description: 'The sender, E.164 (or the short code / name the phone reported).' }),
    service: Nullable(Type.String({ description: 'The service the text names ("Google", "Uber"), else null.' })),
    received_at: Timestamp,
  },
  { $id: 'Code', description: 'A verification code found in an inbound message.', examples: [CODE_EXAMPLE] },
);

const CodeList = Type.Object(
  { codes: Type.Array(Code), next_cursor: NextCursor },
  {
    $id: 'CodeList',
    description: 'A page of verification codes, newest first.',
    examples: [{ codes: [CODE_EXAMPLE], next_cursor: null }],
  },
);

const CodesQuery = Type.Object({
  since: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        'Only codes received after this: an ISO 8601 time with offset, or a message id (msg_...), e.g. the message_id of the last code seen.',
    }),
  ),
  wait: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_WAIT_S,
      default: 0,
      description: `Seconds (0-${MAX_WAIT_S}) to wait for the first code after since (default: now) when there is none yet.`,
    }),
  ),
  ...PaginationQuery,
});

/** `waits`: concurrent waiting requests per organization (a request without wait holds nothing). */
export function registerCodeRoutes(app: App, codes: CodesService, waits: ConnectionCap): void {
  app.get(
    '/v1/cells/:cell_id/codes',
    {
      config: { auth: 'agent', scope: 'messages:read' },
      schema: {
        operationId: 'listCodes',
        tags: ['Messages'],
        summary: 'List verification codes of a cell',
        description: `One-time codes found in the cell's inbound messages, newest first. With wait, long-polls until the first code after since arrives (at most ${MAX_WAIT_S} s; an organization holds a limited number of waiting requests, 429 \`rate_limited\` beyond).`,
        params: CellParams,
        querystring: CodesQuery,
        response: { 200: Described(CodeList, 'A page of codes, newest first; empty when none arrived in time.') },
      },
    },
    async (request, reply) => {
      const organizationId = agentOf(request).organizationId;
      const waitMs = (request.query.wait ?? 0) * 1000;
      const release = waitMs > 0 ? waits.admit(organizationId) : () => {};
      const gone = new AbortController();
      const hangUp = () => gone.abort();
      reply.raw.once('close', hangUp);
      if (request.raw.socket?.destroyed) hangUp();
      try {
        const { codes: list, next_cursor } = await codes.list(
          organizationId,
          request.params.cell_id,
          { ...request.query, waitMs },
          gone.signal,
        );
        return { codes: list, next_cursor };
      } finally {
        release();
        reply.raw.off('close', hangUp);
      }
    },
  );
}
