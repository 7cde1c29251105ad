// The MCP binder: a tool from an operation. Its JSON Schemas are the operation's TypeBox schemas
// (handed to the SDK as a Standard Schema whose validation is ours: the input is checked here,
// with the REST rules and messages, so a bad argument is an invalid_request tool error naming the
// field). The call is one invoke; an error, a kept refusal or a 402 comes back as a tool error.
import type {
  CallToolResult,
  McpServer,
  RegisteredTool,
  StandardSchemaWithJSON,
  ToolAnnotations,
} from '@modelcontextprotocol/server';
import { Type, type TObject, type TSchema } from 'typebox';
import type { ValidateFunction } from 'ajv';
import type { AgentPrincipal } from '../../operations/principals.ts';
import { ApiError } from '../../lib/errors.ts';
import { dollars } from '../billing/money.ts';
import { admit } from '../../operations/admit.ts';
import type { Invoker } from '../../operations/invoke.ts';
import type { AnyOperation, Operation } from '../../operations/operation.ts';
import { validateInput, validatorOf } from '../../operations/validate.ts';
import { asToolError, ok, storedError, type CallContext } from './results.ts';

/** A tool; `Out`, what its `result` reads: its operation's answer (never: unchecked, as where `answer` makes another). */
export interface ToolBinding<Out = never> {
  /** The operation it calls; the tool's name may differ (send_from_pod calls send_pod_draft). */
  operation: AnyOperation;
  /**
   * The tool's arguments, when narrower than the operation's input (a subset of its fields, e.g.
   * send_from_pod without the REST send's send_at); default: the operation's input.
   */
  input?: TObject;
  /** What the agent reads in tools/list; default: the operation's description. */
  description?: string;
  annotations: ToolAnnotations;
  /** Tightens the operation's `optional` idempotency to `required` (send_message, contract §10). */
  requireKey?: boolean;
  /** The tool's output schema, when it is not the operation's. */
  output?: TSchema;
  /**
   * A paid tool: unless called with `confirm: true` (and when `when` says the call is paid), it
   * does nothing and answers the quote operation's price with `confirmation_required: true`.
   */
  confirm?: { quote: AnyOperation; when?(input: Record<string, unknown>): boolean };
  /**
   * The answer and whether it repeats an earlier call, from a fresh value that is not the answer
   * (start_cycle: the operation's `{replayed, job}`, a client_id's earlier job; a kept outcome is the job).
   */
  answer?: (value: never) => { value: unknown; replayed: boolean };
  /** The structured content (default: the answer itself) and the short text of an answer. */
  result(value: Out, replayed: boolean): { structured?: Record<string, unknown>; text: string };
  /**
   * The tool is the payment (pay): with `_meta["x402/payment"]` settled, its answer is what was
   * paid and the billing after it; the operation (the payment's 402) is not run.
   */
  settles?: true;
}

/** A binding whose `result` reads the answer of its operation, typed from it. */
export const tool = <Out>(
  binding: Omit<ToolBinding<Out>, 'operation'> & { operation: Operation<TObject, Out, never> },
): ToolBinding => binding;

/** The x402 v2 MCP transport's `_meta` keys (x402 specs/transports-v2/mcp.md). */
export const X402_PAYMENT = 'x402/payment';
export const X402_PAYMENT_RESPONSE = 'x402/payment-response';

/** What was paid in a tool call, and the facilitator's settlement. */
export interface Settlement {
  settled: unknown;
  paid: { payment_id: string; intent: string; amount_usd: string };
}

/** Billing's side of a payment inside a tool call (the x402 rail's settlement, the status after it). */
export interface McpPayments {
  /** Settles an x402 v2 PaymentPayload for the organization, once ever (contract §7), or throws its 402. */
  settle(organizationId: string, payload: unknown): Promise<Settlement>;
  status(organizationId: string): Promise<unknown>;
}

/** x402 v2 PaymentRequired, as a paid tool's error carries it in structuredContent (the output schemas admit it). */
const PAYMENT_REQUIRED_SCHEMA = {
  type: 'object',
  required: ['x402Version', 'accepts'],
  properties: {
    x402Version: { type: 'integer' },
    error: { type: 'string' },
    resource: { type: 'object' },
    accepts: { type: 'array', items: { type: 'object' } },
  },
};

const IdempotencyKey = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '^[\\x20-\\x7e]+$',
  description:
    'Makes retries safe: the same key with the same arguments within 24 hours returns the first result; with other arguments it is an error.',
});

/** A TypeBox schema as plain JSON Schema for a tool: no $id (nested copies would clash), no REST-only keywords. */
function jsonSchemaOf(schema: TSchema): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(schema, (key, value: unknown) =>
      key === '$id' || key === 'x-response-description' || key === 'examples' || (key === 'format' && value === 'phone')
        ? undefined
        : value,
    ),
  ) as Record<string, unknown>;
}

/** The SDK's Standard Schema: our JSON Schema, and a validation that lets everything through to ours. */
function standard(schema: TSchema, json = jsonSchemaOf(schema)): StandardSchemaWithJSON {
  return {
    '~standard': {
      version: 1,
      vendor: 'cellgate',
      validate: (value: unknown) => ({ value: value ?? {} }),
      jsonSchema: { input: () => json, output: () => json },
    },
  } as StandardSchemaWithJSON;
}

/** A bound tool: its schemas built once per process (each server of a request registers them). */
export interface BoundTool {
  name: string;
  binding: ToolBinding;
  input: StandardSchemaWithJSON;
  output: StandardSchemaWithJSON;
  validate: ValidateFunction;
  /** It may answer payment_required, and takes a payment in `_meta["x402/payment"]`. */
  payable: boolean;
}

/** The tool `name` of a binding. */
export function boundTool(name: string, binding: ToolBinding): BoundTool {
  const op = binding.operation;
  const args = binding.input ?? (op.input as TObject);
  const takesKey = op.idempotency !== 'none';
  const required = binding.requireKey || op.idempotency === 'required';
  const confirm: Record<string, TSchema> = binding.confirm
    ? {
        confirm: Type.Optional(
          Type.Boolean({
            description:
              'A paid action: true to do it. Without it nothing is done and the answer is its price (confirmation_required).',
          }),
        ),
      }
    : {};
  // Unknown arguments are refused, as REST refuses unknown body fields and query parameters.
  const input = Type.Object(
    {
      ...args.properties,
      ...(takesKey
        ? ({ idempotency_key: required ? IdempotencyKey : Type.Optional(IdempotencyKey) } as Record<string, TSchema>)
        : {}),
      ...confirm,
    },
    { additionalProperties: false },
  );
  const payable = binding.confirm !== undefined || binding.settles === true || op.errors.includes('payment_required');
  const output = binding.output ?? op.output;
  return {
    name,
    binding,
    input: standard(input),
    // A paid tool's payment_required carries the x402 PaymentRequired as structuredContent: v1
    // hosts validate it against the output schema even on an error, so the schema admits it.
    output: payable
      ? standard(output, { type: 'object', anyOf: [jsonSchemaOf(output), PAYMENT_REQUIRED_SCHEMA] })
      : standard(output),
    validate: validatorOf(input),
    payable,
  };
}

export interface ToolContext {
  invoker: Invoker;
  /** The HTTP request the call came in (its id and logger, for an unexpected failure). */
  call: CallContext;
  /** Aborted when the process drains: a wait answers at once ("no reply yet"). */
  drain: AbortSignal;
  payments: McpPayments;
  agent: AgentPrincipal;
  /** The MCP endpoint's URL: the resource an x402 payment of a tool names. */
  endpointUrl: string;
}

/** Registers the tool on a request's server, acting for the context's agent. */
export function registerBoundTool(server: McpServer, tool: BoundTool, context: ToolContext): RegisteredTool {
  const { binding } = tool;
  return server.registerTool(
    tool.name,
    {
      description: binding.description ?? binding.operation.description,
      inputSchema: tool.input,
      outputSchema: tool.output,
      annotations: binding.annotations,
    },
    (async (
      args: Record<string, unknown>,
      request: { mcpReq: { signal: AbortSignal; _meta?: Record<string, unknown> } },
    ): Promise<CallToolResult> => {
      // The client hanging up, or the process draining, ends a wait.
      const ctx = { mcpReq: { signal: AbortSignal.any([request.mcpReq.signal, context.drain]) } };
      const payload = tool.payable ? request.mcpReq._meta?.[X402_PAYMENT] : undefined;
      let settlement: Settlement | undefined;
      let input: Record<string, unknown> = {};
      /**
       * A refusal of the payment `pay` carried with no quote left to name (a replayed payload whose
       * quote is paid): the PaymentDetails of the intent the call asks for, with the refusal's words and reason.
       */
      const withIntent = async (error: unknown): Promise<unknown> => {
        if (!(error instanceof ApiError) || error.code !== 'payment_required' || error.extensions?.payment)
          return error;
        try {
          await context.invoker.invoke(binding.operation, context.agent, input, { validate: false });
          return error;
        } catch (quoted) {
          if (!(quoted instanceof ApiError) || quoted.code !== 'payment_required') return error;
          return new ApiError('payment_required', error.message, {
            extensions: { ...quoted.extensions, ...error.extensions },
          });
        }
      };
      try {
        validateInput(tool.validate, args, 'arguments');
        const { idempotency_key, confirm, ...rest } = args;
        input = rest;
        const paid = binding.confirm && (binding.confirm.when ? binding.confirm.when(input) : true);
        if (paid && confirm !== true) {
          const quote = await context.invoker.invoke(binding.confirm!.quote, context.agent, input, {
            validate: false,
            signal: ctx.mcpReq.signal,
            resourceUrl: context.endpointUrl,
          });
          const price = (quote.replayed ? JSON.parse(quote.body) : quote.value) as Quote;
          return ok({ confirmation_required: true, quote: price }, confirmationText(tool.name, price));
        }
        const invoke = (resourceUrl?: string) =>
          context.invoker.invoke(binding.operation, context.agent, input, {
            validate: false,
            signal: ctx.mcpReq.signal,
            resourceUrl,
            ...(typeof idempotency_key === 'string'
              ? { idempotencyKey: idempotency_key, idempotency: { route: `mcp:${tool.name}` } }
              : {}),
          });
        let outcome: Awaited<ReturnType<typeof invoke>> | undefined;
        if (payload !== undefined) {
          // Paid only for a call that may run: the organization's standing is checked first.
          admit(binding.operation, context.agent);
          if (binding.settles) {
            settlement = await context.payments.settle(context.agent.organizationId, payload);
            const paid = { ...settlement.paid, billing: await context.payments.status(context.agent.organizationId) };
            return withPayment(answer(binding, paid as never, false), settlement);
          }
          // Paid only when the call needs it: a re-issued call (the same idempotency_key) replays
          // its first answer, and a call the balance covers runs, neither taking the payment.
          try {
            outcome = await invoke();
          } catch (error) {
            if (!(error instanceof ApiError) || error.code !== 'payment_required') throw error;
            settlement = await context.payments.settle(context.agent.organizationId, payload);
          }
        }
        outcome ??= await invoke(context.endpointUrl);
        if (outcome.replayed) {
          const body = JSON.parse(outcome.body) as never;
          if (outcome.status >= 400) return withPayment(storedError(body), settlement);
          return withPayment(answer(binding, body, true), settlement);
        }
        const fresh = binding.answer
          ? binding.answer(outcome.value as never)
          : { value: outcome.value, replayed: false };
        return withPayment(answer(binding, fresh.value as never, fresh.replayed), settlement);
      } catch (thrown) {
        // A refused payment names what to pay: the open quote it was for, else (pay) the intent asked.
        const error = binding.settles && payload !== undefined && !settlement ? await withIntent(thrown) : thrown;
        // A refused payment is completed as any 402 (a fresh quote, its checkout_url and PaymentRequired).
        const completed =
          error instanceof ApiError && error.code === 'payment_required'
            ? await context.invoker.enrich(
                { principal: context.agent, resourceUrl: context.endpointUrl, headers: false },
                error,
              )
            : error;
        return withPayment(asToolError(completed, context.call, tool), settlement);
      }
    }) as never,
  );
}

interface Quote {
  amount_usd: string;
  covered_by: string;
  detail: string;
  payment: { intent: string; amount_usd: string; rails: string[]; x402?: unknown } | null;
}

/** What a paid tool called without confirm says: the cost, and what doing it needs (a payment first, and by whom). */
function confirmationText(tool: string, quote: Quote): string {
  const payment = quote.payment;
  if (!payment)
    return `Not done yet. ${quote.detail} (${dollars(quote.amount_usd)}, nothing to pay first). To do it, call ${tool} with confirm: true.`;
  const asked = `pay {intent: "${payment.intent}"} (or ${tool} with confirm: true)`;
  const how = payment.x402
    ? `${asked} answers payment_required with the x402 PaymentRequired: an x402 client retries that call with _meta["x402/payment"]; or a person pays at its checkout_url`
    : payment.rails.length > 0
      ? `no agent payment rail is configured here: a person pays it at the checkout_url that ${asked} answers`
      : 'no payment rail is configured here: ask the operator';
  return `Not done: a payment of ${dollars(payment.amount_usd)} (${payment.intent}) is needed first. ${quote.detail} To pay: ${how}; then call ${tool} with confirm: true.`;
}

/** The result, with the settlement of the payment the call carried (x402 MCP transport). */
function withPayment(result: CallToolResult, settlement: Settlement | undefined): CallToolResult {
  if (!settlement) return result;
  return { ...result, _meta: { ...result._meta, [X402_PAYMENT_RESPONSE]: settlement.settled } };
}

function answer(binding: ToolBinding, value: never, replayed: boolean): CallToolResult {
  const { structured, text } = binding.result(value, replayed);
  return ok(structured ?? (value as Record<string, unknown>), text);
}
