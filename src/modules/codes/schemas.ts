// The codes' schemas: a code found in an inbound message, a page of them, and the listing's query.
import { Type } from 'typebox';
import { PaginationQuery, pageOf } from '../../http/pagination.ts';
import { Nullable, Timestamp } from '../../http/schemas.ts';
import { MAX_WAIT_S } from './service.ts';

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

export const CodeList = pageOf('codes', Code, 'CodeList', 'A page of verification codes, newest first.', CODE_EXAMPLE);

export const CodesQuery = Type.Object({
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
