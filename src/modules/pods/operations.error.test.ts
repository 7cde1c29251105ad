// The pods' operations refuse through invoke as their REST routes do: bad input field by field,
// another organization's ids as 404, a missing scope as insufficient_scope.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, type TestApp } from '../../../test/harness.ts';
import { refusalOf, withPrincipal } from '../../../test/support/operations.ts';
import { clientId } from '../../../test/support/pods.ts';
import type { AgentPrincipal } from '../../operations/principals.ts';
import type { AnyOperation, Principal } from '../../operations/operation.ts';

describe('pods operations through invoke: refusals', () => {
  let t: TestApp;
  let principal: AgentPrincipal;
  before(async () => ({ t, principal } = await withPrincipal()));
  after(async () => t?.close());

  const refusal = (op: AnyOperation, input: Record<string, unknown>, who: Principal = principal) =>
    refusalOf(t, op, who, input);

  it('refuses bad input as invalid_request naming each field', async () => {
    const ops = t.services.podOperations;
    const blank = await refusal(ops.createPod, { name: ' ', client_id: clientId() });
    assert.equal(blank.code, 'invalid_request');
    assert.deepEqual(
      blank.errors?.map((e) => e.field),
      ['name'],
    );
    const unknown = await refusal(ops.drafts.cell.create, {
      cell_id: 'cell_x',
      client_id: clientId(),
      to: 'not a phone',
      body: 'hi',
      colour: 'red',
    });
    assert.equal(unknown.code, 'invalid_request');
    assert.ok(
      unknown.errors?.some((e) => e.field === 'colour' && e.code === 'unknown_field'),
      JSON.stringify(unknown.errors),
    );
    const noList = await refusal(ops.lists.pod.addNumbers, { pod_id: 'pod_x', list_id: 'lst_x' });
    assert.ok(
      noList.errors?.some((e) => e.field === 'numbers' && e.code === 'required'),
      JSON.stringify(noList.errors),
    );
  });

  it("answers 404 for another organization's pod, draft scope and jobs, and for an unknown cell", async () => {
    const ops = t.services.podOperations;
    const otherOrg = await activeOrganization(t);
    const other = await t.services.organizations.authenticate(otherOrg.apiKey);
    assert.ok(other);
    const theirs = (await t.services.invoker.invoke(ops.createPod, other, { name: 'Theirs', client_id: clientId() }))
      .replayed;
    assert.equal(theirs, false);
    const [pod] = (await t.services.pods.list(other.organizationId, {})).pods;
    assert.ok(pod);
    for (const [op, input] of [
      [ops.getPod, { id: pod.id }],
      [ops.deletePod, { id: pod.id }],
      [ops.drafts.pod.list, { pod_id: pod.id }],
      [ops.listPodJobs, { pod_id: pod.id }],
      [ops.ignore.cell.list, { cell_id: 'cell_unknown' }],
    ] as const) {
      const error = await refusal(op, input);
      assert.equal(error.status, 404);
      assert.equal(error.code, 'not_found');
    }
    assert.equal((await t.services.pods.get(other.organizationId, pod.id)).id, pod.id, 'still there');
  });

  it('refuses a credential without the scope', async () => {
    const ops = t.services.podOperations;
    const reader = { ...principal, credentialType: 'oauth_token' as const, scopes: ['cells:read'] };
    const error = await refusal(ops.createPod, { name: 'No', client_id: clientId() }, reader);
    assert.equal(error.code, 'insufficient_scope');
    assert.equal(error.status, 403);
  });
});
