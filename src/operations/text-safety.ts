// Text safety, the one check of every door (REST's body parser, query and params; invoke's input
// validation, which MCP tools and console forms go through): no string a request carries may hold
// a C0 control character other than tab, LF and CR, DEL or an unpaired UTF-16 surrogate
// (PostgreSQL refuses NUL; the others are never meant) — 400 `invalid_request` with
// `errors[].code = "invalid_character"` naming the field.
import { ApiError, type FieldError } from '../lib/errors.ts';

/**
 * Forbidden in any request string. With the `u` flag a surrogate pair is one code point, so
 * `[\uD800-\uDFFF]` matches only unpaired surrogates.
 */
export const UNSAFE_TEXT = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uD800-\uDFFF]/u;
export const MAX_FIELD_ERRORS = 10;

export const unsafeTextMessage = (field: string) =>
  `${field} must not contain control characters (other than tab, line feed and carriage return) or unpaired UTF-16 surrogates.`;

/** A field name fit to echo: the forbidden characters of a key written as \uXXXX. */
export const printable = (name: string) =>
  UNSAFE_TEXT.test(name)
    ? name.replace(/[\u0000-\u001F\u007F\uD800-\uDFFF]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : name;

export function textError(errors: FieldError[]): ApiError {
  const detail = errors.length === 1 ? errors[0].message : `${errors.length} fields contain forbidden characters.`;
  return new ApiError('invalid_request', detail, { errors });
}

/**
 * Whether the parsed value of valid JSON `text` can hold a forbidden character or a prototype key.
 * Fatal UTF-8 decoding leaves no unpaired surrogate in the text and JSON.parse refuses raw C0
 * characters in strings, so they arrive only through the escapes \u, \b and \f; DEL may also
 * be raw. Most bodies have none of these, and skip the walk (sends are a hot path).
 */
export function mayHoldUnsafeText(text: string): boolean {
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
export function unsafeFields(root: object): FieldError[] {
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
        if (UNSAFE_TEXT.test(value))
          errors.push({ field, code: 'invalid_character', message: unsafeTextMessage(field) });
      } else if (typeof value === 'object' && value !== null) {
        nodes.push(value);
        paths.push(field);
      }
    }
  }
  return errors;
}

/** Throws the invalid_request of the fields of `value` (an object or array) that hold forbidden text, if any. */
export function checkText(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  const errors = unsafeFields(value);
  if (errors.length > 0) throw textError(errors);
}

/** A 400 naming the fields of `value` (parsed from `text`) that hold forbidden characters; none when clean. */
export function checkTextSafety(text: string, value: unknown): void {
  if (typeof value !== 'object' || value === null || !mayHoldUnsafeText(text)) return;
  const errors = unsafeFields(value);
  if (errors.length > 0) throw textError(errors);
}
