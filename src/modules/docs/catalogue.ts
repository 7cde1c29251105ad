// The error catalogue behind /docs/errors: one entry per code of the error table (ERRORS and
// ERROR_DOCS in src/lib/errors.ts), with the operations the OpenAPI document says can answer it
// and an example body rendered by the same function as real errors.
import { http } from '../../lib/node-http.ts';
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
  /** The situations that answer it, each with what to pay (payment_required only). */
  cases?: PaymentCase[];
}

/** One situation that answers 402 payment_required, and the `payment` it carries. */
export interface PaymentCase {
  intent: 'setup' | 'create_cell' | 'reinstate' | 'top_up' | null;
  when: string;
  /** `METHOD /path` of the REST API, or words (an MCP tool, a family of operations). */
  operations: string[];
  amount: string;
  detail: string;
  then: string;
}

/**
 * The 402s of contract §7, in the order an organization meets them. `detail` is the API's text
 * (enforcement.ts), with the parts that vary in braces.
 */
const PAYMENT_CASES: PaymentCase[] = [
  {
    intent: 'setup',
    when: 'The first cell: the organization is verified but has no paid tier yet.',
    operations: ['POST /v1/cells'],
    amount: 'The first month of the tier: `starter` ($20.00 by default), or the tier `?tier=` names.',
    detail: 'No paid tier yet: pay the setup of {tier} to start.',
    then: 'Pay it, then repeat the create: the tier is active for a month and the cell is created.',
  },
  {
    intent: 'create_cell',
    when: "One cell more than the tier includes: the tier's included cells are in use and no paid `create_cell` credit is left.",
    operations: ['POST /v1/cells'],
    amount: 'One cell-month ($8.00 by default).',
    detail: "The {tier} tier's {n} included cell(s) are in use: pay for one more cell.",
    then: 'Pay it, then repeat the create: the paid credit is used by the next `POST /v1/cells`.',
  },
  {
    intent: 'top_up',
    when: 'A send the prepaid balance cannot cover (texts are charged per segment from the balance).',
    operations: [
      'POST /v1/cells/{cell_id}/messages/send',
      'POST /v1/cells/{cell_id}/messages/{message_id}/reply',
      'draft sends and pod cycles',
      'the MCP tool send_message',
    ],
    amount: 'The larger of the minimum top-up (`min_amount_usd`, $5.00 by default) and the shortfall.',
    detail: 'The prepaid balance cannot cover this message ({price}): top up.',
    then: 'Pay it, then repeat the send with the same Idempotency-Key: a 402 is never kept under a key.',
  },
  {
    intent: 'reinstate',
    when: 'The organization is suspended: its period ended unpaid and the 7-day grace is over.',
    operations: ['POST /v1/cells', 'POST /v1/cells/{cell_id}/messages/send', 'every other send'],
    amount: 'The amount due (the renewal of the tier and its extra cells).',
    detail: 'The organization is suspended for an unpaid period: pay the amount due to reinstate it.',
    then: 'Pay it: the organization is active again; repeat the request.',
  },
  {
    intent: null,
    when: 'A payment sent with the request was refused (an x402 `PAYMENT-SIGNATURE` or an MPP credential): invalid, for another amount, or already used.',
    operations: [
      'POST /v1/billing/x402/pay',
      'POST /v1/billing/mpp/pay',
      'any paid request carrying PAYMENT-SIGNATURE',
    ],
    amount:
      'The body says why in `detail`; a payment used before has `reason: "replayed"` and is never credited twice.',
    detail: '(varies)',
    then: 'Pay again with a fresh payment.',
  },
];

/**
 * The example 402 exactly as the API sends it for an organization's first cell on a deployment
 * with the card rail only (x402 and MPP add their blocks to `payment` when configured).
 */
function paymentExample(docsUrl: string, baseUrl: string) {
  return problemBody(
    new ApiError('payment_required', 'No paid tier yet: pay the setup of starter to start.', {
      extensions: {
        payment: {
          amount_usd: '20.00',
          currency: 'USD',
          intent: 'setup',
          tier: 'starter',
          rails: ['card_processor'],
          checkout_url: `${baseUrl}/v1/billing/checkout/pay_01jdx4c5d6e7f8g9h0j1k2m3n4?token=Qm9yZWRBcGVzQ2x1Yk1lbWJlcnNo`,
        },
      },
    }),
    EXAMPLE_REQUEST_ID,
    docsUrl,
  );
}

export interface Landing {
  name: string;
  version: string;
  links: Record<'docs' | 'errors' | 'console' | 'health' | 'openapi', string> & {
    /** Sign-in to the console (an emailed code). */
    sign_in: string;
    /** The MCP endpoint ({base_url}/mcp). */
    mcp: string;
    /** The REST API's sign-up operation (POST). */
    sign_up: string;
  };
  /** The REST API's base address, for the quick start's examples. */
  base_url: string;
}

const EXAMPLE_REQUEST_ID = 'req_01jdx3m6q9k8v2c4n7r5t0w1yz';

/** The example `detail`: the first clause of `when`, as a sentence. */
const sentence = (text: string) => {
  const clause = text.replace(/; .*/, '').replaceAll('`', '');
  return `${clause[0].toUpperCase()}${clause.slice(1)}.`;
};

function example(code: ErrorCode, docsUrl: string, baseUrl: string) {
  if (code === 'payment_required') return paymentExample(docsUrl, baseUrl);
  const extra =
    code === 'invalid_request'
      ? { errors: [{ field: 'display_name', code: 'required', message: 'display_name is required.' }] }
      : {};
  return problemBody(new ApiError(code, sentence(ERROR_DOCS[code].when), extra), EXAMPLE_REQUEST_ID, docsUrl);
}

export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ERRORS, code);

export function errorCatalogue(
  operations: readonly DocumentedOperation[],
  docsUrl: string,
  baseUrl: string,
): ErrorEntry[] {
  return ERROR_CODES.map((code) => entry(code, operations, docsUrl, baseUrl));
}

function entry(
  code: ErrorCode,
  operations: readonly DocumentedOperation[],
  docsUrl: string,
  baseUrl: string,
): ErrorEntry {
  const answering = operations.filter((o) => o.codes.includes(code));
  return {
    code,
    title: ERRORS[code].title,
    status: ERRORS[code].status,
    status_text: http.STATUS_CODES[ERRORS[code].status] ?? '',
    meaning: `${ERROR_DOCS[code].when[0].toUpperCase()}${ERROR_DOCS[code].when.slice(1)}.`,
    causes: ERROR_DOCS[code].causes,
    fix: ERROR_DOCS[code].fix,
    example: example(code, docsUrl, baseUrl),
    operations: answering.map((o) => ({
      operation_id: o.operationId,
      method: o.method,
      path: o.url.replace(/:(\w+)/g, '{$1}'),
      summary: o.summary,
    })),
    every_operation: answering.length > 0 && answering.length === operations.length,
    ...(code === 'payment_required' ? { cases: PAYMENT_CASES } : {}),
  };
}
