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
import type { AgentPrincipal } from '../../http/types.ts';
import { compileBody } from '../../http/validation.ts';
import type { Invoker } from '../../operations/invoke.ts';
import type { AnyOperation } from '../../operations/operation.ts';
import { validateInput } from '../../operations/validate.ts';
import { asToolError, ok, storedError, type CallContext } from './results.ts';

export interface ToolBinding {
  /** The operation it calls; the tool's name may differ (send_from_pod calls send_pod_draft). */
  operation: AnyOperation;
  /**
   * The tool's arguments, when narrower than the operation's input (a subset of its fields, e.g.
   * send_from_pod without the REST send's send_at); default: the operation's input.
   */
  input?: TObject;
  /** What the agent reads in tools/list. */
  description: string;
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
  result(value: never, replayed: boolean): { structured?: Record<string, unknown>; text: string };
}

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
function standard(schema: TSchema): StandardSchemaWithJSON {
  const json = jsonSchemaOf(schema);
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
  return {
    name,
    binding,
    input: standard(input),
    output: standard(binding.output ?? op.output),
    validate: compileBody(input),
  };
}

export interface ToolContext {
  invoker: Invoker;
  /** The HTTP request the call came in (its id and logger, for an unexpected failure). */
  call: CallContext;
  /** Aborted when the process drains: a wait answers at once ("no reply yet"). */
  drain: AbortSignal;
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
      description: binding.description,
      inputSchema: tool.input,
      outputSchema: tool.output,
      annotations: binding.annotations,
    },
    (async (args: Record<string, unknown>, request: { mcpReq: { signal: AbortSignal } }): Promise<CallToolResult> => {
      // The client hanging up, or the process draining, ends a wait.
      const ctx = { mcpReq: { signal: AbortSignal.any([request.mcpReq.signal, context.drain]) } };
      try {
        validateInput(tool.validate, args, 'arguments');
        const { idempotency_key, confirm, ...input } = args;
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
        const outcome = await context.invoker.invoke(binding.operation, context.agent, input, {
          validate: false,
          signal: ctx.mcpReq.signal,
          resourceUrl: context.endpointUrl,
          ...(typeof idempotency_key === 'string'
            ? { idempotencyKey: idempotency_key, idempotency: { route: `mcp:${tool.name}` } }
            : {}),
        });
        if (outcome.replayed) {
          const body = JSON.parse(outcome.body) as never;
          if (outcome.status >= 400) return storedError(body);
          return answer(binding, body, true);
        }
        const fresh = binding.answer
          ? binding.answer(outcome.value as never)
          : { value: outcome.value, replayed: false };
        return answer(binding, fresh.value as never, fresh.replayed);
      } catch (error) {
        return asToolError(error, context.call, tool.name);
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
    return `Not done yet. ${quote.detail} ($${quote.amount_usd}, nothing to pay first). To do it, call ${tool} with confirm: true.`;
  const asked = `pay {intent: "${payment.intent}"} (or ${tool} with confirm: true)`;
  const how = payment.x402
    ? `${asked} answers payment_required with the x402 PaymentRequired, which an x402 client pays over REST (POST /v1/billing/x402/pay with PAYMENT-SIGNATURE), and a checkout_url a person can pay at instead`
    : payment.rails.length > 0
      ? `no agent payment rail is configured here: a person pays it at the checkout_url that ${asked} answers`
      : 'no payment rail is configured here: ask the operator';
  return `Not done: a payment of $${payment.amount_usd} (${payment.intent}) is needed first. ${quote.detail} To pay: ${how}; then call ${tool} with confirm: true.`;
}

function answer(binding: ToolBinding, value: never, replayed: boolean): CallToolResult {
  const { structured, text } = binding.result(value, replayed);
  return ok(structured ?? (value as Record<string, unknown>), text);
}
