// Schema pieces shared by every module's routes.
import { Type, type Static, type TSchema } from 'typebox';

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

export const IdParam = (name: string, prefix: string) =>
  Type.Object({ [name]: Type.String({ minLength: 1, maxLength: 64, description: `${prefix}_... id` }) });

/** RFC 9457 problem details, the body of every error. */
export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String(),
    request_id: Type.String(),
    errors: Type.Optional(
      Type.Array(Type.Object({ field: Type.String(), code: Type.String(), message: Type.String() })),
    ),
  },
  { $id: 'Problem', additionalProperties: true, description: 'RFC 9457 problem details.' },
);
