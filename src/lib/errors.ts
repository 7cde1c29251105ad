// The typed domain error: a machine `code` with its HTTP status and title, in one table. Services
// and lib/ throw ApiError without knowing HTTP; src/http/errors.ts renders it as problem+json.

export const ERRORS = {
  invalid_request: { status: 400, title: 'Invalid request' },
  invalid_code: { status: 400, title: 'Invalid code' },
  code_expired: { status: 400, title: 'Code expired' },
  unauthenticated: { status: 401, title: 'Unauthenticated' },
  payment_required: { status: 402, title: 'Payment required' },
  forbidden: { status: 403, title: 'Forbidden' },
  insufficient_scope: { status: 403, title: 'Insufficient scope' },
  organization_unverified: { status: 403, title: 'Organization not verified' },
  organization_suspended: { status: 403, title: 'Organization suspended' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  request_timeout: { status: 408, title: 'Request timeout' },
  conflict: { status: 409, title: 'Conflict' },
  cell_not_active: { status: 409, title: 'Cell not active' },
  recipient_opted_out: { status: 409, title: 'Recipient opted out' },
  client_id_conflict: { status: 409, title: 'client_id conflict' },
  idempotency_request_in_progress: { status: 409, title: 'Idempotent request in progress' },
  wallet_already_registered: { status: 409, title: 'Wallet already registered' },
  billing_disabled: { status: 409, title: 'Billing disabled' },
  cell_in_pod: { status: 409, title: 'Cell in another pod' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused' },
  rate_limited: { status: 429, title: 'Rate limited' },
  headers_too_large: { status: 431, title: 'Request headers too large' },
  internal_error: { status: 500, title: 'Internal error' },
  unavailable: { status: 503, title: 'Service unavailable' },
} as const;

export type ErrorCode = keyof typeof ERRORS;

/** Every error code, in table order (the `code` enum of the OpenAPI Problem schema). */
export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

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
    this.status = ERRORS[code].status;
    this.errors = extra.errors;
    this.headers = extra.headers;
    this.extensions = extra.extensions;
  }
}

export const notFound = (what = 'resource') => new ApiError('not_found', `No such ${what}.`);

export const invalidField = (field: string, code: string, message: string) =>
  new ApiError('invalid_request', message, { errors: [{ field, code, message }] });
