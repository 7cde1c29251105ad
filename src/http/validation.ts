// Request validation: bodies are strict (no coercion, no silent stripping: an unknown field is
// a 400 `unknown_field`); query strings, params and headers are coerced from their text form.
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { normalizePhone } from '../lib/phone.ts';
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

export function registerValidation(app: App): void {
  const strict = makeAjv(false);
  const coercing = makeAjv(true);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? strict : coercing).compile(schema as object),
  );
}
