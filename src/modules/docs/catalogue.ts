// The error catalogue behind /docs/errors: one entry per code of the error table (ERRORS and
// ERROR_DOCS in src/lib/errors.ts), with the operations the OpenAPI document says can answer it
// and an example body rendered by the same function as real errors.
import { STATUS_CODES } from 'node:http';
import { ApiError, ERROR_CODES, ERROR_DOCS, ERRORS, type ErrorCode } from '../../lib/errors.ts';
import { problemBody } from '../../http/errors.ts';
import type { DocumentedOperation } from '../../http/openapi.ts';

export interface ErrorEntry {
  code: ErrorCode;
  title: string;
  status: number;
  status_text: string;
  meaning: string;
  causes: string[];
  fix: string;
  example: ReturnType<typeof problemBody>;
  operations: { operation_id: string; method: string; path: string; summary: string }[];
  /** Every documented operation can return it (the operations are not listed on the page). */
  every_operation: boolean;
}

export interface Landing {
  name: string;
  version: string;
  links: Record<'docs' | 'errors' | 'console' | 'health' | 'openapi', string>;
}

const EXAMPLE_REQUEST_ID = 'req_01jdx3m6q9k8v2c4n7r5t0w1yz';

/** The example `detail`: the first clause of `when`, as a sentence. */
const sentence = (text: string) => {
  const clause = text.replace(/; .*/, '').replaceAll('`', '');
  return `${clause[0].toUpperCase()}${clause.slice(1)}.`;
};

function example(code: ErrorCode, docsUrl: string) {
  const extra =
    code === 'invalid_request'
      ? { errors: [{ field: 'display_name', code: 'required', message: 'display_name is required.' }] }
      : {};
  return problemBody(new ApiError(code, sentence(ERROR_DOCS[code].when), extra), EXAMPLE_REQUEST_ID, docsUrl);
}

export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ERRORS, code);

export function errorCatalogue(operations: readonly DocumentedOperation[], docsUrl: string): ErrorEntry[] {
  return ERROR_CODES.map((code) => entry(code, operations, docsUrl));
}

function entry(code: ErrorCode, operations: readonly DocumentedOperation[], docsUrl: string): ErrorEntry {
  const answering = operations.filter((o) => o.codes.includes(code));
  return {
    code,
    title: ERRORS[code].title,
    status: ERRORS[code].status,
    status_text: STATUS_CODES[ERRORS[code].status] ?? '',
    meaning: `${ERROR_DOCS[code].when[0].toUpperCase()}${ERROR_DOCS[code].when.slice(1)}.`,
    causes: ERROR_DOCS[code].causes,
    fix: ERROR_DOCS[code].fix,
    example: example(code, docsUrl),
    operations: answering.map((o) => ({
      operation_id: o.operationId,
      method: o.method,
      path: o.url.replace(/:(\w+)/g, '{$1}'),
      summary: o.summary,
    })),
    every_operation: answering.length > 0 && answering.length === operations.length,
  };
}
