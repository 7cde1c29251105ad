// Request validation: bodies are strict (no coercion, no silent stripping: an unknown field is
// a 400 `unknown_field`); query strings, params and headers are coerced from their text form.
// Text safety: a body must be UTF-8 JSON whose top level is an object, and no string a request
// carries (body at any depth, query, path params) may hold a C0 control character other than
// tab, LF and CR, DEL or an unpaired UTF-16 surrogate (PostgreSQL refuses NUL; the others are
// never meant) — 400 `invalid_request` with `errors[].code = "invalid_character"`.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { errorCodes, type FastifyReply, type FastifyRequest, type HookHandlerDoneFunction } from 'fastify';
import { normalizePhone } from '../lib/phone.ts';
import { hookList } from './auth.ts';
import { registerSerialization } from './serialization.ts';
import { ApiError, type FieldError } from '../lib/errors.ts';
import type { App } from './types.ts';

function makeAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes,
    useDefaults: true,
    removeAdditional: false,
    allErrors: true,
    strict: false,
  });
  (addFormats as unknown as (ajv: Ajv) => void)(ajv);
  ajv.addFormat('phone', { type: 'string', validate: (value: string) => normalizePhone(value) !== null });
  return ajv;
}

/**
 * One Ajv per mode for the whole process, shared by every app it builds (tests build many), and
 * each schema compiled once: keyed by its JSON text, since Fastify hands a fresh object for the
 * same schema to each app (header schemas are lowercased copies).
 */
function compilerOf(ajv: Ajv): (schema: object) => ValidateFunction {
  const compiled = new Map<string, ValidateFunction>();
  return (schema) => {
    const key = JSON.stringify(schema);
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(schema);
      compiled.set(key, validate);
    }
    return validate;
  };
}
const compileStrict = compilerOf(makeAjv(false));
const compileCoercing = compilerOf(makeAjv(true));

/**
 * Forbidden in any request string. With the `u` flag a surrogate pair is one code point, so
 * `[\uD800-\uDFFF]` matches only unpaired surrogates.
 */
const UNSAFE_TEXT = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uD800-\uDFFF]/u;
const MAX_FIELD_ERRORS = 10;
const utf8 = new TextDecoder('utf-8', { fatal: true });

const unsafeTextMessage = (field: string) =>
  `${field} must not contain control characters (other than tab, line feed and carriage return) or unpaired UTF-16 surrogates.`;

/** A field name fit to echo: the forbidden characters of a key written as \uXXXX. */
const printable = (name: string) =>
  UNSAFE_TEXT.test(name)
    ? name.replace(/[\u0000-\u001F\u007F\uD800-\uDFFF]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : name;

function textError(errors: FieldError[]): ApiError {
  const detail = errors.length === 1 ? errors[0].message : `${errors.length} fields contain forbidden characters.`;
  return new ApiError('invalid_request', detail, { errors });
}

/**
 * Whether the parsed value of valid JSON `text` can hold a forbidden character or a prototype key.
 * Fatal UTF-8 decoding leaves no unpaired surrogate in the text and JSON.parse refuses raw C0
 * characters in strings, so they arrive only through the escapes \u, \b and \f; DEL may also
 * be raw. Most bodies have none of these, and skip the walk (sends are a hot path).
 */
function mayHoldUnsafeText(text: string): boolean {
  // In valid JSON a backslash only starts an escape, and an escape is two characters at least.
  for (let i = text.indexOf('\\'); i !== -1; i = text.indexOf('\\', i + 2)) {
    const next = text.charCodeAt(i + 1);
    if (next === 0x75 /* u */ || next === 0x62 /* b */ || next === 0x66 /* f */) return true;
  }
  return text.includes('\u007F') || text.includes('__proto__') || text.includes('constructor');
}

/**
 * The fields (dotted paths, e.g. `media_urls.0`) whose key or string value holds a forbidden
 * character, and prototype-poisoning keys (`__proto__`, `constructor.prototype`) as unknown
 * fields, as secure-json-parse refuses them for Fastify's own parser. Iterative: a body nested
 * thousands deep must not overflow the stack.
 */
function unsafeFields(root: object): FieldError[] {
  const errors: FieldError[] = [];
  const nodes: object[] = [root];
  const paths: string[] = [''];
  for (let n = 0; n < nodes.length && errors.length < MAX_FIELD_ERRORS; n++) {
    const node = nodes[n];
    const path = paths[n];
    const keys = Array.isArray(node) ? null : Object.keys(node);
    const length = keys ? keys.length : (node as unknown[]).length;
    for (let i = 0; i < length && errors.length < MAX_FIELD_ERRORS; i++) {
      const key = keys ? keys[i] : String(i);
      const value = (node as Record<string, unknown>)[key];
      const field = path === '' ? key : `${path}.${key}`;
      if (keys) {
        const poisoning =
          key === '__proto__' ||
          (key === 'constructor' && typeof value === 'object' && value !== null && Object.hasOwn(value, 'prototype'));
        if (poisoning) {
          const name = printable(field);
          errors.push({ field: name, code: 'unknown_field', message: `${name} is not a known field.` });
          continue;
        }
        if (UNSAFE_TEXT.test(key)) {
          const name = printable(field);
          errors.push({ field: name, code: 'invalid_character', message: unsafeTextMessage(name) });
          continue;
        }
      }
      if (typeof value === 'string') {
        if (UNSAFE_TEXT.test(value)) errors.push({ field, code: 'invalid_character', message: unsafeTextMessage(field) });
      } else if (typeof value === 'object' && value !== null) {
        nodes.push(value);
        paths.push(field);
      }
    }
  }
  return errors;
}

/**
 * The application/json body parser (replaces Fastify's): strict UTF-8, JSON, a top-level object,
 * no forbidden characters. An empty body and malformed JSON keep Fastify's error codes (mapped
 * in errors.ts); the body limit (413) is Fastify's, applied before this runs.
 */
function parseJsonBody(body: Buffer): Record<string, unknown> {
  if (body.length === 0) throw new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY();
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
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ApiError('invalid_request', 'The body must be a JSON object.', {
      errors: [{ field: 'body', code: 'invalid_type', message: 'body must be a JSON object.' }],
    });
  }
  if (mayHoldUnsafeText(text)) {
    const errors = unsafeFields(value);
    if (errors.length > 0) throw textError(errors);
  }
  return value as Record<string, unknown>;
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

export function registerValidation(app: App): void {
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? compileStrict : compileCoercing)(schema as object),
  );
  registerSerialization(app);

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    let value: Record<string, unknown>;
    try {
      value = parseJsonBody(body as Buffer);
    } catch (error) {
      done(error as Error);
      return;
    }
    done(null, value);
  });

  // First among each route's preValidation hooks (before e.g. `request.body ??= {}`). Not on
  // WebSocket routes: the event stream answers a bad query with a close code (4400) after the
  // upgrade, which a browser can read, where an HTTP 400 before it is hidden.
  app.addHook('onRoute', (route) => {
    const ws = route as { websocket?: boolean; wsHandler?: unknown };
    if (ws.websocket || ws.wsHandler) return;
    route.preValidation = [checkQueryAndParams, ...hookList(route.preValidation)];
  });
}
