// Schema pieces shared by every module's routes.
import { Type, type Static, type TSchema } from 'typebox';
import { ERROR_CODES, type ErrorCode } from '../lib/errors.ts';

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds.' });

/**
 * `schema` or null. Scalars become `type: [t, 'null']` rather than a union: fast-json-stringify
 * serializes that directly, where a union costs a schema check per field on every response.
 */
export function Nullable<T extends TSchema>(schema: T) {
  const plain = schema as unknown as { type?: unknown };
  if (typeof plain.type === 'string' && plain.type !== 'object' && plain.type !== 'array') {
    return Type.Unsafe<Static<T> | null>({ ...schema, type: [plain.type, 'null'] });
  }
  return Type.Unsafe<Static<T> | null>(Type.Union([schema, Type.Null()]));
}

/** A strict request body: unknown fields are rejected with `unknown_field`. */
export const Body: typeof Type.Object = ((properties: Parameters<typeof Type.Object>[0], options?: object) =>
  Type.Object(properties, { additionalProperties: false, ...options })) as typeof Type.Object;

/** An id field of a resource whose ids start `prefix_` (a path parameter of its routes). */
export const IdField = (prefix: string) =>
  Type.String({ minLength: 1, maxLength: 64, description: `${prefix}_... id` });

export const IdParam = (name: string, prefix: string) => Type.Object({ [name]: IdField(prefix) });

/**
 * A success response's OpenAPI description (what this answer is, e.g. "The created cell."), kept
 * apart from the schema's own description (what the resource is). Every documented 2xx response
 * has one (src/http/openapi.ts checks). Documentation only: validation and serialization ignore it.
 */
export function Described<T extends TSchema>(schema: T, description: string): T {
  return { ...schema, 'x-response-description': description };
}

/** The body of a 204 answer. */
export const NoContent = (description: string) => Type.Null({ 'x-response-description': description });

/** A public route outside the API (a page, the OpenAPI document, the icon): no rate limit, hidden from the document. */
export const PUBLIC_PAGE = { config: { auth: 'public' as const, unlimited: true }, schema: { hide: true } };

/** RFC 9457 problem details, the body of every error. */
export const Problem = Type.Object(
  {
    type: Type.String({ description: '{docs_url}/errors/<code>: a page describing the code.' }),
    title: Type.String({ description: 'The title of the code.' }),
    status: Type.Integer({ minimum: 400, maximum: 599, description: 'The HTTP status.' }),
    detail: Type.String({ description: 'What went wrong with this request, for humans.' }),
    code: Type.Unsafe<ErrorCode>({
      type: 'string',
      enum: [...ERROR_CODES],
      description: 'The machine-readable error code.',
    }),
    request_id: Type.String({ description: 'The X-Request-Id of the request; quote it when asking for help.' }),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          field: Type.String({
            description: 'The field, dotted for nested ones (media_urls.1), or the header or query parameter.',
          }),
          code: Type.String({
            description: 'What is wrong with it, e.g. required, unknown_field, too_long, invalid_format.',
          }),
          message: Type.String(),
        }),
        { description: 'One entry per invalid field (validation errors).' },
      ),
    ),
  },
  {
    $id: 'Problem',
    additionalProperties: true,
    description:
      'RFC 9457 problem details: the body of every error (application/problem+json). Some codes add members, e.g. payment on 402.',
    examples: [
      {
        type: 'https://cellgate.test/docs/errors/invalid_request',
        title: 'Invalid request',
        status: 400,
        detail: 'body must NOT have fewer than 1 characters.',
        code: 'invalid_request',
        request_id: 'req_01jdx3m6q9k8v2c4n7r5t0w1yz',
        errors: [{ field: 'body', code: 'too_short', message: 'body must NOT have fewer than 1 characters.' }],
      },
    ],
  },
);
