// An operation is one value: what it is called, who may call it (credential kind, scope, whether
// an unverified organization may), its idempotency rule, the errors it answers, its input schema
// (TypeBox, the JSON Schema every front door derives from) and `run`. REST routes, MCP tools and
// console forms are adapters that bind it and call `invoke` (./invoke.ts); none re-implements
// admission, idempotency or payment completion.
import type { Static, TObject, TSchema } from 'typebox';
import type { IdempotencyRecorder } from '../http/idempotency.ts';
import type { AgentPrincipal } from '../http/types.ts';
import type { ErrorCode } from '../lib/errors.ts';

/**
 * `optional`: a call may carry a key (REST's Idempotency-Key); `required`: it must; `none`: keys
 * are not taken. An adapter may tighten `optional` to `required` (MCP's send_message, contract §10).
 */
export type IdempotencyRule = 'required' | 'optional' | 'none';

/** A console session acting for its organization (the console's forms call operations as it). */
export interface ConsolePrincipal {
  credentialType: 'console_session';
  organizationId: string;
  organizationName: string;
  organizationStatus: AgentPrincipal['organizationStatus'];
  scopes: string[];
}

/** Who calls an operation: an agent's credential (REST, MCP) or a console session. */
export type Principal = AgentPrincipal | ConsolePrincipal;

export interface RunContext {
  principal: Principal;
  organizationId: string;
  /**
   * Set when the call carries an idempotency key and the operation is `recorded`: the service
   * writes the outcome with it in the transaction of the work (and its outbox events).
   */
  record?: IdempotencyRecorder;
  /** Aborted when the caller hangs up (waits end early). */
  signal?: AbortSignal;
}

export interface Operation<In extends TObject = TObject, Out = unknown> {
  /** snake_case; the MCP tool's name and (camelCased) the REST operationId unless the route says otherwise. */
  name: string;
  summary: string;
  description: string;
  /** The OAuth scope it needs (API keys carry every scope); null: any agent credential. */
  scope: string | null;
  /** Callable before the organization is verified, or while it is suspended (status, whoami). */
  allowUnverified?: boolean;
  /** Only API keys, never OAuth access tokens. */
  apiKeyOnly?: boolean;
  idempotency: IdempotencyRule;
  /**
   * The service writes the outcome in its own transaction through `ctx.record` (one commit per
   * call, no lookup before the work); otherwise invoke looks the key up first and writes after.
   */
  recorded?: boolean;
  /** The status of a success (a kept outcome's; REST's answer). */
  status?: number;
  /** The codes it answers beyond those of admission, input and conventions (the OpenAPI error responses). */
  errors: readonly ErrorCode[];
  input: In;
  /** Rewrites valid input to its canonical form before the key's hash (a phone number to E.164). */
  prepare?(input: Static<In>): Static<In>;
  /** The answer's schema (MCP's outputSchema; REST binds its own response schema, usually this one). */
  output: TSchema;
  run(ctx: RunContext, input: Static<In>): Promise<Out>;
}

/** Declares an operation (the identity, for inference of `input` in `run`). */
export function defineOperation<In extends TObject, Out>(operation: Operation<In, Out>): Operation<In, Out> {
  return operation;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOperation = Operation<TObject, any>;
