// OAuth protocol errors: RFC 6749 §5.2 / §4.1.2.1, RFC 7591 §3.2.2, RFC 8707 §2. The protocol
// endpoints (/oauth/*) answer them as `{error, error_description}` JSON, not problem+json.
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'server_error'
  | 'temporarily_unavailable'
  // Not an RFC code: 429 from the per-address limits, told apart from an outage (decisions).
  | 'rate_limited';

export class OAuthError extends Error {
  readonly error: OAuthErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(error: OAuthErrorCode, description: string, status = 400, headers: Record<string, string> = {}) {
    super(description);
    this.error = error;
    this.status = status;
    this.headers = headers;
  }

  body() {
    return { error: this.error, error_description: this.message };
  }
}

/** 401 invalid_client; the challenge names HTTP Basic, the scheme client secrets are sent with. */
export const invalidClient = (description: string) =>
  new OAuthError('invalid_client', description, 401, { 'WWW-Authenticate': 'Basic realm="cellgate", charset="UTF-8"' });
