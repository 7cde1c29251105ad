// Input validation of every door that hands invoke (or an MCP tool) parsed input: text safety
// first (./text-safety.ts: a NUL or an unpaired surrogate is `invalid_character`, whatever the
// schema says of the field), then the schema, strict (no coercion, unknown fields refused), with
// REST's codes and messages. The Ajv instances are REST's too (src/http/validation.ts compiles its
// routes' schemas here), so a field refused at one door is refused with the same words at the others.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ApiError, type FieldError } from '../lib/errors.ts';
import { normalizePhone } from '../lib/phone.ts';
import { checkText } from './text-safety.ts';

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
/** The validator of a body schema (strict: no coercion), as the routes use it; operations validate their input with it. */
export const compileBody = compilerOf(makeAjv(false));
/** The validator of a query string, path or headers schema: values are coerced from their text. */
export const compileCoercing = compilerOf(makeAjv(true));

const validators = new WeakMap<object, ValidateFunction>();

/** The strict validator of a schema, compiled once. */
export function validatorOf(schema: object): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    validate = compileBody(schema);
    validators.set(schema, validate);
  }
  return validate;
}

/** Throws invalid_request (errors[] naming the fields) unless `input` is safe text and valid against `validate`. */
export function validateInput(validate: ValidateFunction, input: unknown, context = 'body'): void {
  checkText(input);
  if (!validate(input)) throw invalidInput(validate.errors ?? [], context);
}

/** An Ajv error, as Ajv and Fastify's validation report it. */
export interface SchemaError {
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

function fieldError(error: SchemaError, context: string): FieldError {
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
    return {
      field,
      code: 'invalid_phone_number',
      message: `${field} must be a valid phone number in international E.164 form, e.g. +14155550123.`,
    };
  }
  return { field, code, message: `${field} ${error.message ?? 'is invalid'}.` };
}

/** 400 invalid_request naming each invalid field (the field, or `context` for the whole input: body, querystring). */
export function invalidInput(errors: readonly SchemaError[], context: string): ApiError {
  const fields = errors.map((error) => fieldError(error, context));
  const detail = fields.length === 1 ? fields[0]!.message : `${fields.length} fields are invalid.`;
  return new ApiError('invalid_request', detail, { errors: fields });
}
