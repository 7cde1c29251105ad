// Tool results: structured content with a short text, and service errors (ApiError) as tool
// errors that carry the machine code, the fields and, on 402, the PaymentDetails.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { ApiError, errorOf } from '../../lib/errors.ts';

export function ok(structured: Record<string, unknown>, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

interface ErrorBody {
  code: string;
  message: string;
  errors?: { field: string }[];
  [member: string]: unknown;
}

/**
 * A tool error: `{"error": {...}}` as JSON text and no structuredContent. Every tool declares an
 * outputSchema, and v1 SDK hosts validate structuredContent against it even when isError is set
 * (throwing -32602 instead of showing the error), so the error travels where no host validates.
 * `field` repeats the first error's field, so an agent fixing one argument needs no array walk.
 */
function errorResult(error: ErrorBody): CallToolResult {
  const { code, message, ...rest } = error;
  const field = error.errors?.[0]?.field;
  const body = { code, message, ...(field === undefined ? {} : { field }), ...rest };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: body }) }] };
}

export function toolError(error: ApiError): CallToolResult {
  return errorResult(errorOf(error));
}

/** A replayed error outcome (send_message): the stored `error` member (less its HTTP status) as a tool error. */
export function storedError({ status: _status, ...error }: ErrorBody & { status?: unknown }): CallToolResult {
  return errorResult(error);
}

/** Anything but an ApiError is a bug or an outage: rethrown, so the SDK answers a JSON-RPC error without details. */
export function asToolError(error: unknown): CallToolResult {
  if (error instanceof ApiError) return toolError(error);
  throw error;
}
