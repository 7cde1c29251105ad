// Tool results: structured content with a short text and the same content as JSON text (MCP's
// SHOULD: a host that shows the model only `content` loses nothing), and service errors
// (ApiError) as tool errors that carry the machine code, the fields and, on 402, the PaymentDetails.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { isDatabaseUnavailable } from '../../db/errors.ts';
import { ApiError, errorOf } from '../../lib/errors.ts';

export function ok(structured: Record<string, unknown>, text: string): CallToolResult {
  return {
    content: [
      { type: 'text', text },
      { type: 'text', text: JSON.stringify(structured) },
    ],
    structuredContent: structured,
  };
}

/** The refusal of a tool to an unverified organization: it names the tool and the way out over MCP. */
export function unverified(tool: string): ApiError {
  return new ApiError(
    'organization_unverified',
    `${tool} needs a verified organization: call verify_organization with the 6-digit code emailed at sign-up.`,
  );
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

/**
 * A tool error. A paid tool's payment_required that carries the x402 PaymentRequired follows the
 * x402 v2 MCP transport: the PaymentRequired is the structuredContent and the first text (JSON),
 * the error (PaymentDetails, checkout_url) the second text.
 */
export function toolError(error: ApiError, payable = false): CallToolResult {
  const body = errorOf(error);
  const required = error.extensions?.x402_payment_required as Record<string, unknown> | undefined;
  const result = errorResult(body);
  if (!payable || error.code !== 'payment_required' || !required) return result;
  return {
    isError: true,
    structuredContent: required,
    content: [{ type: 'text', text: JSON.stringify(required) }, ...result.content],
  };
}

/** A replayed error outcome (send_message): the stored `error` member (less its HTTP status) as a tool error. */
export function storedError({ status: _status, ...error }: ErrorBody & { status?: unknown }): CallToolResult {
  return errorResult(error);
}

/** The request a tool call came in: its id (in every unexpected failure's answer) and its logger. */
export interface CallContext {
  requestId: string;
  log: { warn(object: object, message: string): void; error(object: object, message: string): void };
}

/**
 * Anything but an ApiError is a bug or an outage: logged with the request id, and answered as
 * REST answers it (`unavailable` for a lost database, else `internal_error`) with that id, never
 * the thrown message (a driver's words, SQL).
 */
export function asToolError(
  error: unknown,
  call: CallContext,
  tool?: { name: string; payable: boolean },
): CallToolResult {
  if (error instanceof ApiError)
    return toolError(tool && error.code === 'organization_unverified' ? unverified(tool.name) : error, tool?.payable);
  const down = isDatabaseUnavailable(error);
  if (down) call.log.warn({ err: error }, 'tool call failed: database unavailable');
  else call.log.error({ err: error }, 'tool call failed');
  return errorResult({
    code: down ? 'unavailable' : 'internal_error',
    message: down
      ? 'The database is unreachable; retry shortly.'
      : 'Something went wrong on our side; the request id identifies it in our logs.',
    request_id: call.requestId,
  });
}
