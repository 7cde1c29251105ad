// What the logs leave out (contract §9: secrets and keys are never logged). A request line logs
// its URL, and a credential can arrive in one: refused (credentials go in headers), but by then it
// is in the log. Redacted: the values of query parameters that name a secret, and anything shaped
// like a Cellgate secret wherever it appears in the URL. Headers that carry credentials are
// censored by pino's redact paths wherever a logged object holds them.

export const REDACTED = '[REDACTED]';

/**
 * Query parameters whose value is a secret, lowercased. `state` is the OAuth client's CSRF value
 * (its, not ours to keep); `request` (an authorization request id) is kept: it grants nothing
 * without the owner's credential and is what an operator follows through the log.
 */
const SECRET_PARAMETERS = new Set([
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'api_key',
  'apikey',
  'key',
  'device_key',
  'phone_key',
  'code',
  'code_verifier',
  'client_secret',
  'client_assertion',
  'assertion',
  'secret',
  'password',
  'passwd',
  'state',
  'session',
  'csrf_token',
  'signature',
  'sig',
  'authorization',
  'auth',
]);

/**
 * Cellgate secrets by their type prefix (cg_live_, cg_at_, cg_rt_, cg_ac_, cg_cs_, cg_adm_, cg_dev_,
 * whsec_), raw or percent-encoded (`cg%5Flive%5F`), with the rest of the value.
 */
const SECRET_SHAPE = /(?:cg(?:_|%5f)[a-z]{2,4}(?:_|%5f)|whsec(?:_|%5f))[A-Za-z0-9+/=%._~-]*/gi;

function redactSecretShapes(text: string): string {
  return text.replace(SECRET_SHAPE, REDACTED);
}

function parameterName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ')).trim().toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

/** The URL as it may be logged: secret parameters' values and secret-shaped text replaced by [REDACTED]. */
export function redactUrl(url: string): string {
  const mark = url.indexOf('?');
  const path = redactSecretShapes(mark === -1 ? url : url.slice(0, mark));
  if (mark === -1) return path;
  const query = url
    .slice(mark + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals === -1) return redactSecretShapes(pair);
      const name = pair.slice(0, equals);
      return SECRET_PARAMETERS.has(parameterName(name)) ? `${name}=${REDACTED}` : redactSecretShapes(pair);
    });
  return `${path}?${query.join('&')}`;
}

/** Headers that carry credentials. Idempotency keys are not secret and stay. */
const SECRET_HEADERS = [
  'authorization',
  'x-phone-key',
  'cookie',
  'set-cookie',
  'payment-signature',
  'x-payment',
  'sec-websocket-protocol',
  'stripe-signature',
  'webhook-signature',
];

/** pino `redact` paths: credential headers of a logged request or response, and mail bodies. */
export const REDACT_PATHS = [
  ...SECRET_HEADERS.flatMap((name) => [`req.headers["${name}"]`, `res.headers["${name}"]`, `headers["${name}"]`]),
  'mail.text',
  'mail.subject',
];
