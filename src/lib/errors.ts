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
  mms_unsupported: { status: 409, title: 'MMS not supported' },
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

/** What a code's documentation says: the error pages (/docs/errors/<code>) and the OpenAPI error responses. */
export interface ErrorDoc {
  /** When it is answered, as one clause (the OpenAPI response descriptions quote it). */
  when: string;
  /** The usual causes, most common first. */
  causes: string[];
  /** How to fix it, as one or two sentences. */
  fix: string;
}

export const ERROR_DOCS: Record<ErrorCode, ErrorDoc> = {
  invalid_request: {
    when: 'the request is malformed or fails validation; `errors` names each field',
    causes: [
      'A required field is missing, or a field has the wrong type or format.',
      'A field the operation does not know was sent.',
      'The body is not valid JSON, or a path segment or query value is malformed.',
    ],
    fix: 'Read `errors`: each entry names the `field`, a machine `code` and a message. Correct those fields and send the request again.',
  },
  invalid_code: {
    when: 'the code is wrong or expired',
    causes: ['The verification code was mistyped.', 'The code has expired.'],
    fix: 'Check the code in the verification email and try again; if it expired, sign up again with the same email to receive a new one.',
  },
  code_expired: {
    when: 'five wrong attempts spent the code; sign up again for a new one',
    causes: ['Five wrong attempts used up the verification code.'],
    fix: 'Sign up again with the same email to receive a new code.',
  },
  unauthenticated: {
    when: 'the credential is missing, malformed, unknown, revoked or expired',
    causes: [
      'No `Authorization: Bearer ...` header (or `X-Phone-Key` on the device surface).',
      'The API key was revoked, or the OAuth access token expired.',
      'A credential of one deployment used against another.',
    ],
    fix: 'Send a valid credential: an API key (`cg_live_...`) or an OAuth access token (`cg_at_...`) as `Authorization: Bearer <token>`. Refresh an expired access token; create a new API key if the old one was revoked.',
  },
  payment_required: {
    when: 'billing blocks the action; `payment` describes the payment that unblocks it',
    causes: [
      'The prepaid balance does not cover the send or the new cell.',
      'A payment sent with the request was refused.',
    ],
    fix: 'Read `payment` in the body: it names the amount and the ways to pay (card, x402, MPP). Top up, then repeat the request.',
  },
  forbidden: {
    when: 'the credential is valid but not allowed here (an agent credential on the admin surface, an OAuth token where only API keys are taken)',
    causes: [
      'An agent credential was used on the admin surface.',
      'An OAuth access token was used where only API keys are taken (key management, OAuth grants).',
      'A request to the console came from another origin or without its CSRF token.',
    ],
    fix: 'Use the credential the operation takes: the admin token for admin operations, an API key for key and grant management.',
  },
  insufficient_scope: {
    when: 'the OAuth access token lacks the scope the route needs (`detail` names it)',
    causes: ['The OAuth grant did not include the scope this operation needs.'],
    fix: 'Ask for the scope named in `detail` when authorizing the client, or use an API key (API keys carry every scope).',
  },
  organization_unverified: {
    when: 'the organization has not verified its email yet',
    causes: ['The email verification code sent at sign-up was never submitted.'],
    fix: 'Submit the code from the verification email (`POST /v1/agent/verify`); `GET /v1/agent/status` says what is missing. No code, or it expired? Sign up again with the same email (`POST /v1/agent/sign-up`) for a new one.',
  },
  organization_suspended: {
    when: 'the organization is suspended',
    causes: ['The operator suspended the organization.'],
    fix: 'Contact the operator of this deployment.',
  },
  not_found: {
    when: 'no such resource in this organization',
    causes: [
      'The id is mistyped or belongs to another organization.',
      'The resource was deleted.',
      'The URL does not name a route.',
    ],
    fix: 'Check the id and the path; list the resources to find the right id.',
  },
  method_not_allowed: {
    when: 'the route does not take this method',
    causes: ['The HTTP method is not one the path takes (e.g. PUT where PATCH is expected).'],
    fix: 'Use the method the API reference lists for this path.',
  },
  request_timeout: {
    when: 'the request did not arrive in time',
    causes: [
      'The client sent the headers or body too slowly.',
      'A slow or stalled network between the client and the service.',
    ],
    fix: 'Send the request again; make sure the whole body is sent promptly.',
  },
  conflict: {
    when: 'the resource is in a state that does not allow this',
    causes: [
      'The resource changed state (e.g. an authorization request already answered or expired).',
      'The feature is not offered on this deployment.',
      'The organization keeps as many of this resource as it may (pods, contact lists and their numbers, drafts, scheduled messages, webhooks, ignore entries); `detail` names the limit.',
    ],
    fix: 'Read `detail`, fetch the resource to see its current state, and act on that state; at a limit, delete (or send, cancel) some of that resource first.',
  },
  cell_not_active: {
    when: 'the cell is not active (provisioning or suspended)',
    causes: [
      'The cell is still provisioning: no phone has been paired with it yet.',
      'The cell is suspended or has no phone number.',
    ],
    fix: 'Wait for the `cell.activated` event (or poll the cell until `status` is `active`), then send again.',
  },
  recipient_opted_out: {
    when: 'the recipient texted STOP; sends to them resume after START',
    causes: ['The recipient replied STOP to this cell.'],
    fix: 'Do not send to this number; sends resume once the recipient texts START.',
  },
  client_id_conflict: {
    when: 'the client_id was used with a different body',
    causes: [
      'A create was retried with the same `client_id` but a different body.',
      'The resource created with this `client_id` was deleted; client_ids are not reused.',
    ],
    fix: 'Use a new `client_id` for a different resource, or repeat the exact body to get the existing one.',
  },
  idempotency_request_in_progress: {
    when: 'a request with this Idempotency-Key is still running; retry shortly',
    causes: ['A retry was sent while the first request with the same `Idempotency-Key` is still running.'],
    fix: 'Wait a moment and retry with the same key: the retry then replays the first answer.',
  },
  wallet_already_registered: {
    when: 'the wallet belongs to another organization',
    causes: ['The payer wallet was registered by another organization.'],
    fix: 'Pay from another wallet, or remove it from the other organization first.',
  },
  billing_disabled: {
    when: 'billing is off on this deployment (CELLGATE_BILLING=off): nothing is charged or paid',
    causes: ['The deployment runs with `CELLGATE_BILLING=off`.'],
    fix: 'Nothing to pay: skip the payment step. Operators turn billing on with `CELLGATE_BILLING=on`.',
  },
  cell_in_pod: {
    when: 'the cell belongs to another pod',
    causes: ['A cell can belong to at most one pod, and this one is already in another.'],
    fix: 'Remove the cell from its pod first, or choose another cell.',
  },
  mms_unsupported: {
    when: "the cell's phone cannot send MMS, and the send carries media_urls",
    causes: [
      "The send, reply or draft has `media_urls`, and the phone carrying the cell states `mms_send: false` (the cell's `capabilities`): a Termux phone sends plain SMS only.",
      'A pod draft with media was picked to go out from such a cell.',
    ],
    fix: 'Send the text without `media_urls` (put a link in the body instead), or send from a cell whose `capabilities.mms_send` is true. Nothing was queued or charged.',
  },
  payload_too_large: {
    when: 'the body exceeds 256 KiB',
    causes: ['The JSON body is larger than 256 KiB (often inlined media).'],
    fix: 'Send a smaller body; pass media by URL rather than inline.',
  },
  unsupported_media_type: {
    when: 'the body is not application/json',
    causes: ['The `Content-Type` header is missing or not `application/json`.'],
    fix: 'Send the body as JSON with `Content-Type: application/json`.',
  },
  idempotency_key_reused: {
    when: 'the Idempotency-Key was used with a different request in the last 24 hours',
    causes: ['The same `Idempotency-Key` was sent with a different body or to a different operation.'],
    fix: 'Use a new key for each distinct request; reuse a key only to retry the very same request.',
  },
  rate_limited: {
    when: 'too many requests; retry after Retry-After seconds',
    causes: [
      'The credential sent more requests per second than its limit allows.',
      'Too many sign-ups, or console sign-in attempts, from one address.',
    ],
    fix: 'Wait the number of seconds in the `Retry-After` header, then retry; spread requests out or back off exponentially.',
  },
  headers_too_large: {
    when: 'the request headers or URL exceed 16 KiB',
    causes: ['A very long URL or query string.', 'Large cookies or custom headers.'],
    fix: 'Shorten the URL and headers; move large inputs into the JSON body.',
  },
  internal_error: {
    when: 'an unexpected error; the request id identifies it in the logs',
    causes: ['A bug or an unexpected failure on the service side.'],
    fix: 'Retry later; if it persists, report the `request_id` to the operator: it identifies the failure in the logs.',
  },
  unavailable: {
    when: 'the database is unreachable or the process is shutting down; retry after Retry-After seconds',
    causes: ['The service cannot reach its database.', 'The process is shutting down (a deploy or restart).'],
    fix: 'Retry after the number of seconds in `Retry-After`; idempotent retries with the same `Idempotency-Key` are safe.',
  },
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
    this.status = ERRORS[code].status;
    this.errors = extra.errors;
    this.headers = extra.headers;
    this.extensions = extra.extensions;
  }
}

export const notFound = (what = 'resource') => new ApiError('not_found', `No such ${what}.`);

/** The row, or the 404 of `what` when there is none. */
export function orNotFound<Row>(row: Row | undefined, what: string): Row {
  if (!row) throw notFound(what);
  return row;
}

export const invalidField = (field: string, code: string, message: string) =>
  new ApiError('invalid_request', message, { errors: [{ field, code, message }] });

/** An error as data without HTTP (the problem+json body's code, message, fields and extensions): MCP tool errors, kept idempotent outcomes. */
export function errorOf(error: ApiError) {
  return {
    code: error.code,
    message: error.message,
    ...(error.errors ? { errors: error.errors } : {}),
    ...(error.extensions ?? {}),
  };
}
