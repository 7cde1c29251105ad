// For the operation layer's tests: an app, a principal of a verified organization, and probe
// operations whose runs are counted and whose answers (or refusals) the test chooses.
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { activeOrganization, startApp, type TestApp } from '../harness.ts';
import { recordOutcomes } from '../../src/operations/idempotency.ts';
import type { AgentPrincipal } from '../../src/operations/principals.ts';
import { ApiError } from '../../src/lib/errors.ts';
import {
  defineOperation,
  type AnyOperation,
  type ConsolePrincipal,
  type IdempotencyRule,
  type Principal,
} from '../../src/operations/operation.ts';

export interface ProbeOptions {
  name?: string;
  scope?: string | null;
  allowUnverified?: boolean;
  apiKeyOnly?: boolean;
  idempotency?: IdempotencyRule;
  recorded?: boolean;
  /** What a run throws instead of answering (the test may change it between calls). */
  fail?: () => ApiError | undefined;
}

/** An operation answering `{echo, run}` (`run`: how many runs before this one), counting its runs. */
export function probe(t: TestApp, options: ProbeOptions = {}) {
  const state = { runs: 0, fail: options.fail };
  const operation = defineOperation({
    name: options.name ?? 'probe',
    summary: 'Probe',
    description: 'A test operation.',
    scope: options.scope === undefined ? 'messages:send' : options.scope,
    allowUnverified: options.allowUnverified,
    apiKeyOnly: options.apiKeyOnly,
    idempotency: options.idempotency ?? 'optional',
    recorded: options.recorded,
    status: 202,
    errors: [],
    input: Type.Object(
      { echo: Type.String({ minLength: 1, maxLength: 10 }), to: Type.Optional(Type.String()) },
      { additionalProperties: false },
    ),
    output: Type.Object({ echo: Type.String(), run: Type.Integer() }),
    prepare: (input) => (input.to === undefined ? input : { ...input, to: input.to.replaceAll(' ', '') }),
    run: async (ctx, input) => {
      const run = state.runs++;
      const error = state.fail?.();
      if (error) throw error;
      const answer = { echo: input.echo, run };
      // A recorded operation writes its outcome in the transaction of its work, as the send does.
      if (ctx.record) await recordOutcomes(t.services.idempotency.db, [ctx.record(answer)]);
      return answer;
    },
  });
  return { operation, state };
}

/** An app and the principal of an API key of an active organization. */
export async function withPrincipal(): Promise<{ t: TestApp; principal: AgentPrincipal }> {
  const t = await startApp();
  const org = await activeOrganization(t);
  const principal = await t.services.organizations.authenticate(org.apiKey);
  if (!principal) throw new Error('the API key does not authenticate');
  return { t, principal };
}

/** A console session of the principal's organization (as the console's forms call operations). */
export const consoleSessionOf = (principal: AgentPrincipal): ConsolePrincipal => ({
  credentialType: 'console_session',
  organizationId: principal.organizationId,
  organizationName: principal.organizationName,
  organizationStatus: principal.organizationStatus,
  scopes: principal.scopes,
});

/** The ApiError an invoke of `op` must refuse with. */
export async function refusalOf(
  t: TestApp,
  op: AnyOperation,
  principal: Principal,
  input: Record<string, unknown>,
): Promise<ApiError> {
  const error = await t.services.invoker.invoke(op, principal, input).then(
    () => assert.fail(`expected ${op.name} to refuse`),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ApiError, String(error));
  return error;
}
