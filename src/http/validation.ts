// Request validation: bodies are strict (no coercion, no silent stripping: an unknown field is
// a 400 `unknown_field`); query strings, params and headers are coerced from their text form.
// The query string of an API route is strict too: a parameter the route does not declare is a
// 400 `unknown_field` naming it (apiQueryPolicy below says which routes, and which are exempt).
// Text safety: a body must be UTF-8 JSON whose top level is an object, and no string a request
// carries (body at any depth, query, path params) may hold a C0 control character other than
// tab, LF and CR, DEL or an unpaired UTF-16 surrogate (PostgreSQL refuses NUL; the others are
// never meant) — 400 `invalid_request` with `errors[].code = "invalid_character"`.
import type { ValidateFunction } from 'ajv';
import { errorCodes, type FastifyReply, type FastifyRequest, type HookHandlerDoneFunction } from 'fastify';
import { hookList } from './auth.ts';
import { registerSerialization } from './serialization.ts';
import { ApiError, type FieldError } from '../lib/errors.ts';
import {
  checkTextSafety,
  MAX_FIELD_ERRORS,
  printable,
  textError,
  UNSAFE_TEXT,
  unsafeTextMessage,
} from '../operations/text-safety.ts';
import { compileBody, compileCoercing } from '../operations/validate.ts';
import type { App } from './types.ts';

/** The preValidation hook of a route whose body may be absent: none is `{}`. */
export const optionalBody = async (request: FastifyRequest) => {
  request.body ??= {};
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The application/json body parser (replaces Fastify's): strict UTF-8, JSON, a top-level object,
 * no forbidden characters. Malformed JSON keeps Fastify's error code (mapped in errors.ts); the
 * body limit (413) is Fastify's, applied before this runs.
 */
export function parseJsonBody(body: Buffer): Record<string, unknown> {
  return parseJson(body, false) as Record<string, unknown>;
}

/** The same checks for a body whose top level is an array (the SMSGate app's PATCH /message). */
export function parseJsonList(body: Buffer): unknown[] {
  return parseJson(body, true) as unknown[];
}

function parseJson(body: Buffer, list: boolean): unknown {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new ApiError('invalid_request', 'The body is not valid UTF-8.', {
      errors: [{ field: 'body', code: 'invalid_encoding', message: 'body must be encoded as UTF-8.' }],
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY();
  }
  if (list ? !Array.isArray(value) : typeof value !== 'object' || value === null || Array.isArray(value)) {
    const shape = list ? 'a JSON array' : 'a JSON object';
    throw new ApiError('invalid_request', `The body must be ${shape}.`, {
      errors: [{ field: 'body', code: 'invalid_type', message: `body must be ${shape}.` }],
    });
  }
  checkTextSafety(text, value);
  return value;
}

/** Query strings and path params: every name and value (a repeated query key gives an array). */
function checkQueryAndParams(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  let errors: FieldError[] | null = null;
  for (const part of [request.params, request.query]) {
    if (typeof part !== 'object' || part === null) continue;
    for (const [key, value] of Object.entries(part)) {
      const values: unknown[] = Array.isArray(value) ? value : [value];
      if (UNSAFE_TEXT.test(key) || values.some((v) => typeof v === 'string' && UNSAFE_TEXT.test(v))) {
        const name = printable(key);
        (errors ??= []).push({ field: name, code: 'invalid_character', message: unsafeTextMessage(name) });
      }
    }
  }
  done(errors ? textError(errors.slice(0, MAX_FIELD_ERRORS)) : undefined);
}

/**
 * Whether the route at `url` refuses query parameters it does not declare. The JSON API does, as
 * it refuses unknown body fields (contract §2): every route under /v1, /health, /metrics and the
 * MCP endpoint. Outside them parameters are not ours to police: the OAuth endpoints (/oauth/*)
 * must ignore unrecognized parameters (RFC 6749 §3.1, §3.2); the discovery documents under
 * /.well-known/ (RFC 8414, RFC 9728, MPP) are read by generic protocol clients, as
 * /openapi.{yaml,json} are by tools; and the HTML pages (console, docs, landing) are opened by
 * browsers, mail clients and trackers that add their own (utm_*, cache busters).
 * The WebSocket stream is skipped by the caller: it refuses unknown parameters itself, with a
 * close code (4400) a browser can read (src/modules/events/stream.ts).
 */
const API_PATH = /^\/(?:v1\/|health$|metrics$|mcp$)/;

/** Routes under those paths that are not API, so keep ignoring unknown parameters. */
const OPEN_QUERY_ROUTES: ReadonlySet<string> = new Set([
  // Stripe posts to the URL an operator configured: refusing it over a parameter we never read
  // would lose a payment event. The payment processor's deposit webhook, likewise.
  '/v1/billing/stripe/webhook',
  '/v1/billing/x402/deposits',
  // HTML pages a payer opens from a link (checkout_url) and the local card page's form:
  // browsers, mail clients and trackers add parameters.
  '/v1/billing/stripe/checkout/:payment_id',
  '/v1/billing/checkout/:payment_id',
]);

const refusesUnknownQuery = (url: string): boolean => API_PATH.test(url) && !OPEN_QUERY_ROUTES.has(url);

/**
 * Refuses query parameters outside `declared` (the route's querystring schema). A hook rather
 * than `additionalProperties: false` on the schema: routes without a querystring schema need no
 * synthesized one, which would also change their documented inputs. Runs after the route's own
 * preValidation hooks, right before schema validation, where an Ajv check would run.
 */
function refuseUnknownQuery(declared: ReadonlySet<string>) {
  return function unknownQuery(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const query = request.query;
    const unknown =
      typeof query === 'object' && query !== null ? Object.keys(query).filter((key) => !declared.has(key)) : [];
    if (unknown.length === 0) {
      done();
      return;
    }
    const errors = unknown.slice(0, MAX_FIELD_ERRORS).map((key): FieldError => {
      const name = printable(key);
      return { field: name, code: 'unknown_field', message: `${name} is not a known query parameter.` };
    });
    const detail = unknown.length === 1 ? errors[0].message : `${unknown.length} query parameters are not known.`;
    done(new ApiError('invalid_request', detail, { errors }));
  };
}

/** The parameter names a route's querystring schema declares (none without one). */
function declaredQuery(schema: unknown): Set<string> {
  const querystring = (schema as { querystring?: { properties?: object } } | undefined)?.querystring;
  return new Set(Object.keys(querystring?.properties ?? {}));
}

/**
 * A validator compiled on its first call. Fastify asks for every route's validators when the app
 * is built; compiling them all then was the largest part of building an app (each test process
 * builds several, and most of their routes are never called). Fastify reads `errors` off the
 * function it was given, so the wrapper carries the compiled function's errors.
 */
function lazyValidator(compile: () => ValidateFunction): ValidateFunction {
  let validate: ValidateFunction | undefined;
  const lazy = ((data: unknown) => {
    validate ??= compile();
    const valid = validate(data);
    lazy.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  lazy.errors = null;
  return lazy;
}

export function registerValidation(app: App): void {
  app.setValidatorCompiler(({ schema, httpPart }) =>
    lazyValidator(() => (httpPart === 'body' ? compileBody : compileCoercing)(schema as object)),
  );
  registerSerialization(app);

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    // Many clients label every request JSON, bodiless ones too (cancel, rotate-secret, DELETE): an
    // empty body is no body, answered as one sent without a content type.
    if ((body as Buffer).length === 0) {
      done(null, undefined);
      return;
    }
    let value: Record<string, unknown>;
    try {
      value = parseJsonBody(body as Buffer);
    } catch (error) {
      done(error as Error);
      return;
    }
    done(null, value);
  });

  // The text check first among each route's preValidation hooks (before e.g.
  // `request.body ??= {}`), the unknown-parameter check last. Not on WebSocket routes: the event
  // stream answers a bad query with a close code (4400) after the upgrade, which a browser can
  // read, where an HTTP 400 before it is hidden.
  app.addHook('onRoute', (route) => {
    const ws = route as { websocket?: boolean; wsHandler?: unknown };
    if (ws.websocket || ws.wsHandler) return;
    const hooks = [checkQueryAndParams, ...hookList(route.preValidation)];
    if (refusesUnknownQuery(route.url)) hooks.push(refuseUnknownQuery(declaredQuery(route.schema)));
    route.preValidation = hooks;
  });
}
