// Request schemas shared by the agent and device message routes (limits of contract §2).
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { normalizePhone } from '../../lib/phone.ts';

export const MessageBody = Type.String({ minLength: 1, maxLength: 1600, description: 'Text, 1-1600 characters.' });

export const MediaUrls = Type.Array(
  Type.String({
    format: 'uri',
    pattern: '^https://[^/?#\\s]',
    maxLength: 2048,
    description: 'An https URL of at most 2048 characters.',
  }),
  { maxItems: 10, description: 'Up to 10 https URLs of media to attach (MMS).' },
);

// format 'phone' (src/http/validation.ts): a bad number is reported with the body's other errors.
export const PhoneInput = Type.String({
  minLength: 1,
  maxLength: 64,
  format: 'phone',
  description: 'Phone number in E.164, e.g. +14155550123.',
});

/** The timing fields of every send (contract §12): send_at, and send_now past quiet hours. */
export const ScheduleFields = {
  send_at: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        'Send later: an ISO 8601 time with its offset, in the future and at most 30 days ahead. The message is scheduled until then (cancelable), and queued and charged at that time.',
      examples: ['2026-11-22T09:00:00-05:00'],
    }),
  ),
  send_now: Type.Optional(
    Type.Boolean({
      description:
        "Send even inside the cell's (or its pod's) quiet hours; without it, a send inside them is scheduled for their end.",
    }),
  ),
};

/** Query flag of message and conversation listings (contract §5, ignore). */
export const IncludeIgnored = {
  include_ignored: Type.Optional(
    Type.Boolean({ default: false, description: 'Also show what ignored participants sent (left out by default).' }),
  ),
};

/**
 * An operation's `prepare`: a valid phone in `field` to E.164 (the same call for an idempotency
 * key, whatever the spelling); an absent or invalid one is left for the rules to refuse.
 */
export const normalizedPhoneOf =
  (field: string) =>
  <T extends object>(input: T): T => {
    const value = (input as Record<string, unknown>)[field];
    const phone = typeof value === 'string' ? normalizePhone(value) : null;
    return phone ? { ...input, [field]: phone } : input;
  };

/**
 * preValidation hook: rewrites a valid phone field to E.164, so "+1 415 555 0123" and
 * "+14155550123" are the same request for Idempotency-Key. An invalid one is left for the schema
 * (format 'phone') to report together with the body's other errors.
 */
export const normalizePhoneField = (field: string) => async (request: FastifyRequest) => {
  const body = request.body as Record<string, unknown> | null | undefined;
  if (body && typeof body === 'object' && typeof body[field] === 'string') {
    const phone = normalizePhone(body[field] as string);
    if (phone) body[field] = phone;
  }
};
