// The credential's own operations (whoami, verify) through invoke refuse a console session as
// forbidden (they are about the calling credential); the API keys take it (the organization's person
// manages its keys) and refuse an OAuth token; bad input field by field.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { TestApp } from '../../../test/harness.ts';
import { consoleSessionOf, refusalOf, withPrincipal } from '../../../test/support/operations.ts';
import type { AgentPrincipal } from '../../operations/principals.ts';
import type { AnyOperation, Principal } from '../../operations/operation.ts';

describe('organizations operations through invoke: refusals', () => {
  let t: TestApp;
  let principal: AgentPrincipal;
  before(async () => ({ t, principal } = await withPrincipal()));
  after(async () => t?.close());

  const refusal = (op: AnyOperation, input: Record<string, unknown>, who: Principal = principal) =>
    refusalOf(t, op, who, input);

  it('refuses a console session on whoami and verify, and an OAuth token on the API keys', async () => {
    const ops = t.services.organizationOperations;
    const session = consoleSessionOf(principal);
    assert.equal((await refusal(ops.whoami, {}, session)).code, 'forbidden');
    assert.equal((await refusal(ops.verifyOrganization, { code: '123456' }, session)).code, 'forbidden');
    const created = await t.services.invoker.invoke<{ api_key: string }>(ops.createApiKey, session, {
      name: 'console',
    });
    assert.match(created.replayed === false ? created.value.api_key : '', /^cg_live_/, 'the console manages keys');
    const token = { ...principal, credentialType: 'oauth_token' as const };
    assert.equal((await refusal(ops.createApiKey, { name: 'delegated' }, token)).code, 'forbidden');
    assert.equal((await refusal(ops.listApiKeys, {}, token)).code, 'forbidden');
    const whoami = await t.services.invoker.invoke<{ organization_id: string }>(ops.whoami, principal, {});
    assert.equal(whoami.replayed === false && whoami.value.organization_id, principal.organizationId);
  });

  it('refuses an empty code, a bad key name and an unknown field, naming each', async () => {
    const ops = t.services.organizationOperations;
    for (const [op, input, field] of [
      [ops.verifyOrganization, { code: '' }, 'code'],
      [ops.createApiKey, { name: '' }, 'name'],
      [ops.listApiKeys, { limit: 0 }, 'limit'],
      [ops.whoami, { extra: 1 }, 'extra'],
    ] as const) {
      const error = await refusal(op, input);
      assert.equal(error.code, 'invalid_request');
      assert.deepEqual(
        error.errors?.map((e) => e.field),
        [field],
      );
    }
  });
});
