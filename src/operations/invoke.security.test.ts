import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, type TestApp } from '../../test/harness.ts';
import { consoleSessionOf, probe, withPrincipal } from '../../test/support/operations.ts';
import type { AgentPrincipal } from './principals.ts';
import { ApiError } from '../lib/errors.ts';
import { Type } from 'typebox';
import { admit } from './admit.ts';
import {
  ANONYMOUS,
  defineOperatorOperation,
  definePublicOperation,
  type OperatorContext,
  type OperatorPrincipal,
} from './operation.ts';

const codeOf = (run: () => void) => {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ApiError);
    return error.code;
  }
  return 'admitted';
};

/** An operator operation that answers what `run` returns. */
const operatorProbe = (run: (ctx: OperatorContext) => Promise<Record<string, unknown>>) =>
  defineOperatorOperation({
    name: 'operator_probe',
    summary: 'Probe',
    description: '',
    errors: [],
    input: Type.Object({}),
    output: Type.Object({}),
    run,
  });
describe('invoke admits', () => {
  let t: TestApp;
  let principal: AgentPrincipal;
  before(async () => ({ t, principal } = await withPrincipal()));

  after(async () => t?.close());

  it('an unverified or suspended organization only to operations that allow it', () => {
    for (const status of ['unverified', 'suspended'] as const) {
      const caller = { ...principal, organizationStatus: status };
      assert.equal(
        codeOf(() => admit({ scope: null }, caller)),
        `organization_${status}`,
      );
      assert.equal(
        codeOf(() => admit({ scope: null, allowUnverified: true }, caller)),
        'admitted',
      );
    }
  });

  it('an OAuth token only with the scope, naming it, and never to an API-key-only operation', () => {
    const token: AgentPrincipal = { ...principal, credentialType: 'oauth_token', scopes: ['cells:read'] };
    assert.equal(
      codeOf(() => admit({ scope: 'cells:read' }, token)),
      'admitted',
    );
    try {
      admit({ scope: 'messages:send' }, token);
      assert.fail('admitted without the scope');
    } catch (error) {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, 'insufficient_scope');
      assert.equal(error.extensions?.scope, 'messages:send');
      assert.match(String(error.headers?.['WWW-Authenticate']), /insufficient_scope", scope="messages:send"/);
    }
    assert.equal(
      codeOf(() => admit({ scope: 'cells:read', apiKeyOnly: true }, token)),
      'forbidden',
    );
  });

  it('an API-key-only operation to an API key and to the console, never to an OAuth token', () => {
    const token: AgentPrincipal = { ...principal, credentialType: 'oauth_token' };
    const keysOnly = { scope: null, apiKeyOnly: true };
    assert.deepEqual(
      [principal, consoleSessionOf(principal), token].map((caller) => codeOf(() => admit(keysOnly, caller))),
      ['admitted', 'admitted', 'forbidden'],
    );
  });

  it("the operator's operations only to the operator, and the organization's never to the operator", async () => {
    let runs = 0;
    const operatorOp = operatorProbe(async (ctx) => {
      runs += 1;
      return { token: ctx.principal.tokenId };
    });
    const operator: OperatorPrincipal = { credentialType: 'operator_session', tokenId: 'adm_bootstrap' };
    for (const caller of [principal, consoleSessionOf(principal)]) {
      await assert.rejects(
        t.services.invoker.invoke(operatorOp, caller, {}),
        (error: ApiError) =>
          error.code === 'forbidden' && /administrative surface is not available/.test(error.message),
      );
    }
    assert.equal(runs, 0);
    assert.deepEqual(await t.services.invoker.invoke(operatorOp, operator, {}), {
      replayed: false,
      value: { token: 'adm_bootstrap' },
    });
    const { operation, state } = probe(t, { scope: null });
    await assert.rejects(
      t.services.invoker.invoke(operation, operator, { echo: 'x' }),
      (error: ApiError) => error.code === 'forbidden' && /acts for an organization/.test(error.message),
    );
    assert.equal(state.runs, 0);
  });

  it('an anonymous caller only to public operations, and those to no one with a credential', async () => {
    const { operation, state } = probe(t, { scope: null, allowUnverified: true });
    await assert.rejects(
      t.services.invoker.invoke(operation, ANONYMOUS, { echo: 'x' }),
      (error: ApiError) => error.code === 'unauthenticated' && error.status === 401,
    );
    const operatorOp = operatorProbe(async () => ({}));
    assert.equal(
      codeOf(() => admit(operatorOp, ANONYMOUS)),
      'unauthenticated',
    );
    assert.equal(state.runs, 0);
    let runs = 0;
    const publicOp = definePublicOperation({
      name: 'public_probe',
      summary: 'Probe',
      description: '',
      errors: [],
      input: Type.Object({ echo: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
      output: Type.Object({}),
      run: async (ctx, input) => {
        runs += 1;
        return { caller: ctx.principal.credentialType, echo: input.echo };
      },
    });
    const operator: OperatorPrincipal = { credentialType: 'admin_token', tokenId: 'adm_bootstrap' };
    for (const caller of [principal, operator]) {
      await assert.rejects(
        t.services.invoker.invoke(publicOp, caller, { echo: 'x' }),
        (error: ApiError) => error.code === 'forbidden' && /without a credential/.test(error.message),
      );
    }
    assert.equal(runs, 0);
    await assert.rejects(
      t.services.invoker.invoke(publicOp, ANONYMOUS, { echo: '' }),
      (error: ApiError) => error.code === 'invalid_request',
    );
    assert.deepEqual(await t.services.invoker.invoke(publicOp, ANONYMOUS, { echo: 'x' }), {
      replayed: false,
      value: { caller: 'anonymous', echo: 'x' },
    });
  });

  it('refuses before running, and the refusal is not kept for the key', async () => {
    const { operation, state } = probe(t);
    const token: AgentPrincipal = { ...principal, credentialType: 'oauth_token', scopes: [] };
    await assert.rejects(
      t.services.invoker.invoke(operation, token, { echo: 'x' }, { idempotencyKey: 'k-admit' }),
      (error: ApiError) => error.code === 'insufficient_scope',
    );
    assert.equal(state.runs, 0);
    const allowed = await t.services.invoker.invoke(operation, principal, { echo: 'x' }, { idempotencyKey: 'k-admit' });
    assert.equal(allowed.replayed, false);
  });

  it("never replays one organization's answer to another with the same key", async () => {
    const { operation, state } = probe(t);
    await t.services.invoker.invoke(operation, principal, { echo: 'mine' }, { idempotencyKey: 'k-shared' });
    const other = await activeOrganization(t);
    const stranger = await t.services.organizations.authenticate(other.apiKey);
    assert.ok(stranger);
    const theirs = await t.services.invoker.invoke(
      operation,
      stranger,
      { echo: 'mine' },
      { idempotencyKey: 'k-shared' },
    );
    assert.deepEqual(theirs, {
      replayed: false,
      value: { echo: 'mine', run: 1 },
      body: JSON.stringify({ echo: 'mine', run: 1 }),
    });
    assert.equal(state.runs, 2);
  });
});
