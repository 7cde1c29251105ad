// Tool results: structured content with a short text, and service errors (ApiError) as tool
// errors that carry the machine code, the fields and, on 402, the PaymentDetails.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { ApiError, errorOf } from '../../lib/errors.ts';

export function ok(structured: Record<string, unknown>, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

export function toolError(error: ApiError): CallToolResult {
  const field = error.errors?.[0]?.field;
  return {
    isError: true,
    content: [{ type: 'text', text: `${error.code}: ${error.message}${field ? ` (field: ${field})` : ''}` }],
    structuredContent: { error: errorOf(error) },
  };
}

/** A replayed error outcome (send_message): the stored `error` member as a tool error. */
export function storedError(error: { code: string; message: string; errors?: { field: string }[] }): CallToolResult {
  const field = error.errors?.[0]?.field;
  return {
    isError: true,
    content: [{ type: 'text', text: `${error.code}: ${error.message}${field ? ` (field: ${field})` : ''}` }],
    structuredContent: { error },
  };
}

/** Anything but an ApiError is a bug or an outage: rethrown, so the SDK answers a JSON-RPC error without details. */
export function asToolError(error: unknown): CallToolResult {
  if (error instanceof ApiError) return toolError(error);
  throw error;
}
