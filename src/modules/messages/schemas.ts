// Request schemas shared by the agent and device message routes (limits of contract §2).
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { IdParam } from '../../http/schemas.ts';
import { requirePhone } from '../../lib/phone.ts';

export const MessageBody = Type.String({ minLength: 1, maxLength: 1600, description: 'Text, 1-1600 characters.' });

export const MediaUrls = Type.Array(
  Type.String({ format: 'uri', pattern: '^https://[^/?#\\s]', maxLength: 2048, description: 'An https URL of at most 2048 characters.' }),
  { maxItems: 10, description: 'Up to 10 https URLs of media to attach (MMS).' },
);

export const PhoneInput = Type.String({ minLength: 1, maxLength: 64, description: 'Phone number in E.164, e.g. +14155550123.' });

export const CellParams = IdParam('cell_id', 'cell');
export const MessageParams = Type.Object({ ...CellParams.properties, ...IdParam('message_id', 'msg').properties });

/**
 * preValidation hook: normalises a body's phone field to E.164, or answers 400
 * invalid_phone_number. It runs before the Idempotency-Key claim, so a request rejected for its
 * number is not stored, and "+1 415 555 0123" and "+14155550123" are the same request.
 */
export const normalizePhoneField = (field: string) => async (request: FastifyRequest) => {
  const body = request.body as Record<string, unknown> | null | undefined;
  if (body && typeof body === 'object' && typeof body[field] === 'string') body[field] = requirePhone(field, body[field] as string);
};
