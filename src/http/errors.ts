// One error shape for every route: RFC 9457 problem+json with a machine `code` and the request id.
// Typed codes map to HTTP status here and nowhere else.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/errors.ts';

export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_code: 400,
  code_expired: 400,
  unauthenticated: 401,
  payment_required: 402,
  forbidden: 403,
  organization_unverified: 403,
  organization_suspended: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  cell_not_active: 409,
  recipient_opted_out: 409,
  client_id_conflict: 409,
  idempotency_request_in_progress: 409,
  wallet_already_registered: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

const TITLES: Record<ErrorCode, string> = {
  invalid_request: 'Invalid request',
  invalid_code: 'Invalid code',
  code_expired: 'Code expired',
  unauthenticated: 'Unauthenticated',
  payment_required: 'Payment required',
  forbidden: 'Forbidden',
  organization_unverified: 'Organization not verified',
  organization_suspended: 'Organization suspended',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  request_timeout: 'Request timeout',
  conflict: 'Conflict',
  cell_not_active: 'Cell not active',
  recipient_opted_out: 'Recipient opted out',
  client_id_conflict: 'client_id conflict',
  idempotency_request_in_progress: 'Idempotent request in progress',
  wallet_already_registered: 'Wallet already registered',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  idempotency_key_reused: 'Idempotency key reused',
  rate_limited: 'Rate limited',
  headers_too_large: 'Request headers too large',
  internal_error: 'Internal error',
  unavailable: 'Service unavailable',
};

export interface FieldError {
  field: string;
  code: string;
  message: string;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors?: FieldError[];
  readonly headers?: Record<string, string>;
  /** Extension members added to the problem body (e.g. `payment` on 402). */
  readonly extensions?: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    detail: string,
    extra: { errors?: FieldError[]; headers?: Record<string, string>; extensions?: Record<string, unknown> } = {},
  ) {
    super(detail);
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.errors = extra.errors;
    this.headers = extra.headers;
    this.extensions = extra.extensions;
  }
}

export const notFound = (what = 'resource') => new ApiError('not_found', `No such ${what}.`);

export const invalidField = (field: string, code: string, message: string) =>
  new ApiError('invalid_request', message, { errors: [{ field, code, message }] });

export function problemBody(error: ApiError, requestId: string, docsUrl: string) {
  return {
    type: `${docsUrl}/errors/${error.code}`,
    title: TITLES[error.code],
    status: error.status,
    detail: error.message,
    code: error.code,
    request_id: requestId,
    ...(error.errors ? { errors: error.errors } : {}),
    ...error.extensions,
  };
}

export function sendProblem(reply: FastifyReply, error: ApiError, docsUrl: string): FastifyReply {
  if (error.code === 'unauthenticated' && !reply.hasHeader('www-authenticate')) {
    reply.header('WWW-Authenticate', 'Bearer');
  }
  for (const [name, value] of Object.entries(error.headers ?? {})) reply.header(name, value);
  return reply
    .code(error.status)
    .type('application/problem+json; charset=utf-8')
    .send(problemBody(error, reply.request.id, docsUrl));
}

// Fastify's own errors (body parsing, limits, content type, validation, routing) in our shape.
export function fromFastifyError(error: FastifyError & { validation?: AjvLikeError[]; validationContext?: string }): ApiError {
  if (error.validation) {
    const errors = error.validation.map((e) => fieldError(e, error.validationContext ?? 'body'));
    const detail = errors.length === 1 ? errors[0].message : `${errors.length} fields are invalid.`;
    return new ApiError('invalid_request', detail, { errors });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', 'The request body exceeds 256 KiB.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'Send the body as application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_request', 'The JSON body is empty.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('invalid_request', 'The body is not valid JSON.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('invalid_request', 'Content-Length does not match the body.');
    case 'FST_ERR_BAD_URL':
      return new ApiError('invalid_request', 'The URL path has malformed percent-encoding.');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError('invalid_request', 'A path segment is too long.');
  }
  if (error instanceof SyntaxError || error.statusCode === 400) {
    return new ApiError('invalid_request', 'The body is not valid JSON.');
  }
  if (error.statusCode === 413) return new ApiError('payload_too_large', 'The request body is too large.');
  if (error.statusCode === 415) return new ApiError('unsupported_media_type', 'Send the body as application/json.');
  if (error.statusCode === 404) return notFound('route');
  return new ApiError('internal_error', 'Something went wrong on our side; the request id identifies it in our logs.');
}

interface AjvLikeError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

const KEYWORD_CODES: Record<string, string> = {
  required: 'required',
  additionalProperties: 'unknown_field',
  type: 'invalid_type',
  format: 'invalid_format',
  pattern: 'invalid_format',
  enum: 'invalid_value',
  const: 'invalid_value',
  minLength: 'too_short',
  maxLength: 'too_long',
  minItems: 'too_few',
  maxItems: 'too_many',
  minimum: 'out_of_range',
  maximum: 'out_of_range',
};

function fieldError(error: AjvLikeError, context: string): FieldError {
  const path = error.instancePath.replace(/^\//, '').replaceAll('/', '.');
  const code = KEYWORD_CODES[error.keyword] ?? 'invalid';
  if (error.keyword === 'required') {
    const name = [path, String(error.params.missingProperty)].filter(Boolean).join('.');
    return { field: name, code, message: `${name} is required.` };
  }
  if (error.keyword === 'additionalProperties') {
    const name = [path, String(error.params.additionalProperty)].filter(Boolean).join('.');
    return { field: name, code, message: `${name} is not a known field.` };
  }
  const field = path || context;
  if (error.keyword === 'format' && error.params.format === 'phone') {
    return { field, code: 'invalid_phone_number', message: `${field} must be a valid phone number in international E.164 form, e.g. +14155550123.` };
  }
  return { field, code, message: `${field} ${error.message ?? 'is invalid'}.` };
}

export function registerErrorHandling(app: FastifyInstance, docsUrl: string): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    // A lost or unreachable database is worth retrying shortly (503), not a bug (500).
    const unavailable = !(error instanceof ApiError) && isDatabaseUnavailable(error);
    const apiError = error instanceof ApiError
      ? error
      : unavailable
        ? new ApiError('unavailable', 'The database is unreachable; retry shortly.', { headers: { 'Retry-After': '2' } })
        : fromFastifyError(error);
    if (unavailable) request.log.warn({ err: error }, 'request failed: database unavailable');
    else if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendProblem(reply, apiError, docsUrl);
  });
  app.setNotFoundHandler((request, reply) => sendProblem(reply, notFound('route'), docsUrl));
}
