// An operation is one value: what it is called, who may call it (credential kind, scope, whether
// an unverified organization may), its idempotency rule, the errors it answers, its input schema
// (TypeBox, the JSON Schema every front door derives from) and `run`. REST routes, MCP tools and
// console forms are adapters that bind it and call `invoke` (./invoke.ts); none re-implements
// admission, idempotency or payment completion.
import type { Static, TObject, TSchema } from 'typebox';
import type { IdempotencyRecorder } from './idempotency.ts';
import type { AgentPrincipal } from './principals.ts';
import { ApiError, type ErrorCode } from '../lib/errors.ts';

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

/** Who calls an organization's operation: an agent's credential (REST, MCP) or a console session. */
export type Principal = AgentPrincipal | ConsolePrincipal;

/**
 * The operator: an admin token (`/v1/admin/*`) or the operator console's session (signed in with
 * one). `tokenId` is the admin token that acts, as the operator audit log records it.
 */
export interface OperatorPrincipal {
  credentialType: 'admin_token' | 'operator_session';
  tokenId: string;
}

/**
 * Someone with no credential yet (sign-up, on REST or the console's form). Only an operation that
 * declares the `public` kind admits it; every other refuses it as `unauthenticated`.
 */
export interface PublicPrincipal {
  credentialType: 'anonymous';
}

/** The anonymous caller. */
export const ANONYMOUS: PublicPrincipal = Object.freeze({ credentialType: 'anonymous' });

/** Whoever calls invoke. */
export type Caller = Principal | OperatorPrincipal | PublicPrincipal;

/** The kinds of caller an operation admits: agent credentials, console sessions, the operator, anyone. */
export type PrincipalKind = 'agent' | 'console' | 'operator' | 'public';

export const principalKind = (caller: Caller): PrincipalKind =>
  caller.credentialType === 'console_session'
    ? 'console'
    : caller.credentialType === 'admin_token' || caller.credentialType === 'operator_session'
      ? 'operator'
      : caller.credentialType === 'anonymous'
        ? 'public'
        : 'agent';

export const isOperator = (caller: Caller): caller is OperatorPrincipal => principalKind(caller) === 'operator';

export const isPublic = (caller: Caller): caller is PublicPrincipal => principalKind(caller) === 'public';

/** An organization's operations admit its agents and its console (the default of `principals`). */
export const ORGANIZATION_KINDS: readonly PrincipalKind[] = ['agent', 'console'];

/** What an operator operation runs with: the operator (its audit records name the token). */
export interface OperatorContext {
  principal: OperatorPrincipal;
  signal?: AbortSignal;
}

/** What a public operation runs with: no organization, no credential. */
export interface PublicContext {
  principal: PublicPrincipal;
  signal?: AbortSignal;
}

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

export interface Operation<In extends TObject = TObject, Out = unknown, Context = RunContext> {
  /** snake_case; the MCP tool's name and (camelCased) the REST operationId unless the route says otherwise. */
  name: string;
  summary: string;
  description: string;
  /**
   * Who may call it; default ORGANIZATION_KINDS. An operator operation admits only `['operator']`,
   * a public one only `['public']`.
   */
  principals?: readonly PrincipalKind[];
  /** The OAuth scope it needs (API keys carry every scope); null: any agent credential. */
  scope: string | null;
  /** Callable before the organization is verified, or while it is suspended (status, whoami). */
  allowUnverified?: boolean;
  /**
   * Never an OAuth access token: an API key, or the organization's own person in the console (an
   * access token is a delegation, and must not mint keys or approve more access).
   */
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
  run(ctx: Context, input: Static<In>): Promise<Out>;
}

/**
 * The caller as an agent credential, for operations about the credential itself (whoami, verify):
 * a console session is refused as `forbidden`.
 */
export function agentCaller(principal: Principal): AgentPrincipal {
  if (principal.credentialType === 'console_session')
    throw new ApiError('forbidden', 'This operation takes an agent credential (an API key or an access token).');
  return principal;
}

/**
 * The policy of operations an OAuth access token may not call (an API key or the console may), with
 * no scope and no idempotency key (managing keys and OAuth consent: a delegation must not mint or
 * approve more).
 */
export const API_KEY_ONLY = { scope: null, apiKeyOnly: true, idempotency: 'none' } as const;

/** An operation as declared: with no `errors`, it answers none beyond admission, input and conventions. */
type Declared<O extends AnyOperation, Fixed extends keyof O = never> = Omit<O, Fixed | 'errors'> &
  Partial<Pick<O, 'errors'>>;

/** Declares an operation (typed, for inference of `input` in `run`). */
export function defineOperation<In extends TObject, Out>(operation: Declared<Operation<In, Out>>): Operation<In, Out> {
  return { errors: [], ...operation };
}

export type OperatorOperation<In extends TObject = TObject, Out = unknown> = Operation<In, Out, OperatorContext>;

/** What an operator or public operation does not choose: its admission and idempotency policy. */
type FixedPolicy = 'principals' | 'scope' | 'idempotency' | 'allowUnverified' | 'apiKeyOnly';

/**
 * Declares an operator operation: admin tokens and the operator console only, no scope or
 * organization rule, no idempotency key (the admin routes never took one). Its service records
 * the action in the operator audit log, in the action's transaction, once.
 */
export function defineOperatorOperation<In extends TObject, Out>(
  operation: Declared<OperatorOperation<In, Out>, FixedPolicy>,
): OperatorOperation<In, Out> {
  return { errors: [], ...operation, principals: ['operator'], scope: null, idempotency: 'none' };
}

export type PublicOperation<In extends TObject = TObject, Out = unknown> = Operation<In, Out, PublicContext>;

/**
 * Declares a public operation (sign-up): the anonymous caller only, no scope or organization rule,
 * no idempotency key, nothing to pay (its errors are never enriched). Its REST route is public.
 */
export function definePublicOperation<In extends TObject, Out>(
  operation: Declared<PublicOperation<In, Out>, FixedPolicy>,
): PublicOperation<In, Out> {
  return { errors: [], ...operation, principals: ['public'], scope: null, idempotency: 'none' };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOperation = Operation<TObject, any, any>;
