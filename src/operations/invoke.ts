// invoke(op, principal, input, options): the one transport-free path of every operation, in order:
// admit (credential kind, scope, organization state), validate the input (text safety, then the
// operation's schema: ./validate.ts; unless the adapter already did), claim the idempotency key,
// run (the service opens its transaction, writing the outcome and its outbox events in it),
// complete an error while it is still an ApiError (problem enrichers: billing's 402), return.
//
// Idempotency (contract §2) keeps REST's semantics: scope organization + route + key, 24 hours;
// the same call replays the first outcome, another call with the key is idempotency_key_reused,
// one still running is idempotency_request_in_progress. A `recorded` operation writes its outcome
// in its own transaction and is not looked up before the work: when the work fails, a live record
// of the key answers instead. Not kept: 400s, 402s (the client pays and repeats) and 5xx.
import { createHash } from 'node:crypto';
import { recordOutcomes, type IdempotencyOutcome, type IdempotencyStore } from './idempotency.ts';
import { canonicalJson } from '../lib/canonical-json.ts';
import { ApiError } from '../lib/errors.ts';
import { admit } from './admit.ts';
import { isOperator, isPublic, type AnyOperation, type Caller, type Principal, type RunContext } from './operation.ts';
import { validateInput, validatorOf } from './validate.ts';

export interface InvokeOptions {
  idempotencyKey?: string;
  /**
   * Where the key lives and what makes two calls the same. Default: route `op:<name>`, hash of
   * the route and the canonical (prepared) input. REST passes its route pattern and request hash, so keys
   * and replays are exactly those of the hooks it replaces.
   */
  idempotency?: { route: string; hash?: string };
  /** False when the adapter validated the input already (REST: Fastify, with the same schemas). */
  validate?: boolean;
  /**
   * True when the door admitted the caller already, by the operation's own policy (REST: its
   * onRequest hook, before the body is read): admission runs once per call.
   */
  admitted?: boolean;
  signal?: AbortSignal;
  /** The URL an x402 payment of a 402 names (the request's URL; for MCP the endpoint's). Without one, errors are not enriched. */
  resourceUrl?: string;
  /** Whether the caller can carry response headers (REST): a 402's x402 PaymentRequired travels there, else in the error. */
  headers?: boolean;
  /** The rendering of a refusal to keep for the key (REST: its problem+json); default: code, message, fields, status. */
  keep?: (error: ApiError) => string;
}

/** A fresh answer, or the kept answer of an earlier call with the key (its status and body as stored). */
/**
 * A call's answer: its value, and under an idempotency key the JSON its replays will answer
 * (`body`), which a transport sends as it is, so the first answer and its replays are the same bytes.
 */
export type Invoked<T> =
  { replayed: false; value: T; body?: string } | { replayed: true; status: number; body: string };

export interface EnrichContext {
  principal: Principal;
  resourceUrl: string;
  headers: boolean;
}

/** Completes an error before it leaves (billing: a 402's checkout URL and x402 PaymentRequired). Returns the error to answer. */
export type ProblemEnricher = (context: EnrichContext, error: ApiError) => Promise<ApiError>;

const validated = (op: AnyOperation, input: unknown) => validateInput(validatorOf(op.input), input);

const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

const inProgress = () =>
  new ApiError(
    'idempotency_request_in_progress',
    'A request with this Idempotency-Key is still being processed; retry shortly.',
  );
const reused = () =>
  new ApiError(
    'idempotency_key_reused',
    'This Idempotency-Key was used with a different request in the last 24 hours.',
  );

/** 400s (the client fixes the call), 402s (it pays and repeats with the key) and 5xx are never kept. */
const keepable = (error: unknown): error is ApiError =>
  error instanceof ApiError && error.status !== 400 && error.status !== 402 && error.status < 500;

const defaultKeep = (error: ApiError) =>
  JSON.stringify({
    code: error.code,
    message: error.message,
    ...(error.errors ? { errors: error.errors } : {}),
    ...error.extensions,
    status: error.status,
  });

export class Invoker {
  private readonly store: IdempotencyStore;
  private readonly enrichers: ProblemEnricher[] = [];
  /** Errors already completed (an operation's, met again by the REST error handler). */
  private readonly completed = new WeakSet<ApiError>();

  constructor(store: IdempotencyStore) {
    this.store = store;
  }

  /** Registers a problem enricher (billing registers the completion of its 402s at start-up). */
  addEnricher(enricher: ProblemEnricher): void {
    this.enrichers.push(enricher);
  }

  /** The error as it leaves: each enricher completes it in turn. */
  async enrich(context: EnrichContext, error: ApiError): Promise<ApiError> {
    if (this.completed.has(error)) return error;
    let completed = error;
    for (const enricher of this.enrichers) completed = await enricher(context, completed);
    this.completed.add(completed);
    return completed;
  }

  async invoke<Out>(
    op: AnyOperation,
    principal: Caller,
    input: Record<string, unknown>,
    options: InvokeOptions = {},
  ): Promise<Invoked<Out>> {
    if (isOperator(principal) || isPublic(principal)) {
      // The operator's and the public operations take no key and answer nothing to pay for.
      admit(op, principal);
      if (options.validate !== false) validated(op, input);
      return { replayed: false, value: await op.run({ principal, signal: options.signal }, input) };
    }
    return this.forOrganization<Out>(op, principal, input, options);
  }

  private async forOrganization<Out>(
    op: AnyOperation,
    principal: Principal,
    input: Record<string, unknown>,
    options: InvokeOptions,
  ): Promise<Invoked<Out>> {
    try {
      if (!options.admitted) admit(op, principal);
      if (options.validate !== false) validated(op, input);
      if (op.prepare) input = op.prepare(input);
      const key = options.idempotencyKey;
      if (key === undefined || op.idempotency === 'none') {
        if (op.idempotency === 'required')
          throw new ApiError('invalid_request', 'idempotency_key is required.', {
            errors: [{ field: 'idempotency_key', code: 'required', message: 'idempotency_key is required.' }],
          });
        return { replayed: false, value: await op.run(this.context(principal, options), input) };
      }
      return await this.once<Out>(op, principal, input, key, options);
    } catch (error) {
      // Completed where there is a resource to pay for (REST, MCP); the console shows its own refusal.
      if (error instanceof ApiError && options.resourceUrl !== undefined && this.enrichers.length > 0)
        throw await this.enrich(
          { principal, resourceUrl: options.resourceUrl, headers: options.headers ?? false },
          error,
        );
      throw error;
    }
  }

  private context(principal: Principal, options: InvokeOptions, record?: RunContext['record']): RunContext {
    return { principal, organizationId: principal.organizationId, record, signal: options.signal };
  }

  /** A call under an idempotency key. */
  private async once<Out>(
    op: AnyOperation,
    principal: Principal,
    input: Record<string, unknown>,
    key: string,
    options: InvokeOptions,
  ): Promise<Invoked<Out>> {
    const { store } = this;
    if (!KEY_PATTERN.test(key)) {
      throw new ApiError('invalid_request', 'Idempotency-Key must be 1-255 printable characters.', {
        errors: [
          {
            field: 'Idempotency-Key',
            code: 'invalid_format',
            message: 'Idempotency-Key must be 1-255 printable characters.',
          },
        ],
      });
    }
    const route = options.idempotency?.route ?? `op:${op.name}`;
    const hash =
      options.idempotency?.hash ??
      createHash('sha256')
        .update(`${route}\n${canonicalJson(input)}`)
        .digest('hex');
    const claim = { organizationId: principal.organizationId, route, key };
    const flightKey = `${claim.organizationId}\n${route}\n${key}`;
    // Checked and taken synchronously, before any await: simultaneous calls see each other.
    if (store.inFlight.has(flightKey)) throw inProgress();
    store.inFlight.add(flightKey);
    try {
      const status = op.status ?? 200;
      if (!op.recorded) {
        const existing = await store.findLive(claim);
        if (existing) return replayOf(existing, hash);
      }
      let recorded: string | undefined;
      const record = (body: unknown): IdempotencyOutcome => {
        recorded = JSON.stringify(body);
        return store.outcome(claim, hash, status, recorded);
      };
      let value: Out;
      try {
        value = await op.run(this.context(principal, options, op.recorded ? record : undefined), input);
      } catch (error) {
        // The work rolled back. A recorded operation did not look first: a live record answers now.
        const existing = op.recorded ? await store.findLive(claim).catch(() => undefined) : undefined;
        if (existing) return replayOf(existing, hash);
        if (recorded === undefined && keepable(error)) {
          const body = (options.keep ?? defaultKeep)(error);
          await recordOutcomes(store.db, [store.outcome(claim, hash, error.status, body)]).catch(() => {});
        }
        throw error;
      }
      if (recorded === undefined) await recordOutcomes(store.db, [record(value)]);
      return { replayed: false, value, body: recorded };
    } finally {
      store.inFlight.delete(flightKey);
    }
  }
}

function replayOf(
  existing: { request_hash: string; response_status: number | null; response_body: string | null },
  hash: string,
): Invoked<never> {
  if (existing.request_hash !== hash) throw reused();
  return { replayed: true, status: existing.response_status ?? 200, body: existing.response_body ?? 'null' };
}
