// Input validation of every door that hands invoke (or an MCP tool) parsed input: text safety
// first (./text-safety.ts: a NUL or an unpaired surrogate is `invalid_character`, whatever the
// schema says of the field), then the schema, strict (no coercion, unknown fields refused), with
// REST's codes and messages.
import type { ValidateFunction } from 'ajv';
import { fromFastifyError } from '../http/errors.ts';
import { compileBody } from '../http/validation.ts';
import { checkText } from './text-safety.ts';

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
  if (!validate(input))
    throw fromFastifyError(
      Object.assign(new Error('invalid'), { validation: validate.errors ?? [], validationContext: context }) as never,
    );
}
