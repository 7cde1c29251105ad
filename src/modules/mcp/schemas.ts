// Tool input and output schemas (zod, as the MCP SDK takes them). Limits are contract §2's, the
// same as the REST schemas'; the services check the rules behind them (phone numbers, ownership).
import * as z from 'zod/v4';

export const CellId = z
  .string()
  .regex(/^cell_[0-9a-z]{26}$/, 'a cell id (cell_...)')
  .describe('The cell (phone line): cell_...');
export const MessageId = z
  .string()
  .regex(/^msg_[0-9a-z]{26}$/, 'a message id (msg_...)')
  .describe('msg_... id');
export const Phone = z.string().min(1).max(64).describe('Phone number in E.164, e.g. +14155550123.');
export const Limit = z.number().int().min(1).max(200).optional().describe('Page size, 1-200 (default 50).');
export const Cursor = z.string().min(1).max(512).optional().describe('next_cursor of the previous page.');
export const TimeoutS = z.number().int().min(1).max(50).describe('How long to wait, 1-50 seconds.');

export const MessageBody = z.string().min(1).max(1600).describe('Text, 1-1600 characters.');
export const MediaUrls = z
  .array(
    z
      .string()
      .max(2048)
      .regex(/^https:\/\/[^/?#\s]/, 'an https URL'),
  )
  .max(10)
  .describe('Up to 10 https URLs of media to attach (MMS).');
export const IdempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x20-\x7e]+$/, '1-255 printable ASCII characters')
  .describe(
    'Makes retries safe: the same key with the same arguments within 24 hours returns the first result; with other arguments it is an error.',
  );

// Outputs: the REST views (contract §4), loose so a new field never breaks a client.
export const Cell = z.looseObject({
  id: z.string(),
  display_name: z.string(),
  phone_number: z.string().nullable(),
  status: z.string(),
  online: z.boolean(),
});
export const Message = z.looseObject({
  id: z.string(),
  cell_id: z.string(),
  conversation_id: z.string(),
  direction: z.string(),
  from: z.string(),
  to: z.string(),
  body: z.string(),
  status: z.string(),
  created_at: z.string(),
  code: z.string().nullable().optional().describe('Inbound: the one-time code found in the text, else null.'),
});
export const Conversation = z.looseObject({
  id: z.string(),
  cell_id: z.string(),
  participant: z.string(),
  last_message_at: z.string(),
});
export const NextCursor = z.string().nullable().describe('Cursor of the next page, or null on the last page.');
