// The pods' operations called through invoke as the console calls them (a console session of the
// organization): the same rules and answers as their REST routes, the phone fields in E.164.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { TestApp } from '../../../test/harness.ts';
import { consoleSessionOf, withPrincipal } from '../../../test/support/operations.ts';
import { clientId } from '../../../test/support/pods.ts';
import type { AgentPrincipal } from '../../operations/principals.ts';
import type { ConsolePrincipal } from '../../operations/operation.ts';

describe('pods operations through invoke', () => {
  let t: TestApp;
  let principal: AgentPrincipal;
  let console_: ConsolePrincipal;
  before(async () => {
    ({ t, principal } = await withPrincipal());
    console_ = consoleSessionOf(principal);
  });
  after(async () => t?.close());

  const invoke = (op: Parameters<TestApp['services']['invoker']['invoke']>[0], input: Record<string, unknown>) =>
    t.services.invoker.invoke<unknown>(op, console_, input).then((outcome) => {
      assert.equal(outcome.replayed, false);
      return (outcome as { value: unknown }).value as Record<string, unknown>;
    });

  it('creates a pod, a pod draft with its phone in E.164, and reads them as REST does', async () => {
    const ops = t.services.podOperations;
    const created = await invoke(ops.createPod, { name: 'Console pod', client_id: clientId('pod') });
    assert.equal(created.created, true);
    const pod = created.pod as { id: string; name: string; cell_ids: string[] };
    assert.equal(pod.name, 'Console pod');
    assert.deepEqual(await invoke(ops.getPod, { id: pod.id }), pod);

    const draft = await invoke(ops.drafts.pod.create, {
      pod_id: pod.id,
      client_id: clientId('draft'),
      to: '+1 415 555 0199',
      body: 'Hello from the console.',
    });
    assert.equal(draft.created, true);
    assert.equal((draft.draft as { to: string }).to, '+14155550199');
    const page = await invoke(ops.drafts.pod.list, { pod_id: pod.id });
    assert.deepEqual(
      (page.drafts as { id: string }[]).map((d) => d.id),
      [(draft.draft as { id: string }).id],
    );

    const ignored = await invoke(ops.ignore.pod.add, { pod_id: pod.id, participant: '+1 (415) 555-0111' });
    assert.equal((ignored.entry as { participant: string }).participant, '+14155550111');

    const list = await invoke(ops.lists.pod.create, { pod_id: pod.id, name: 'Regulars', numbers: ['+14155550198'] });
    assert.deepEqual(list.numbers, ['+14155550198']);
    assert.equal(await invoke(ops.lists.pod.remove, { pod_id: pod.id, list_id: list.id }), null);

    assert.equal(await invoke(ops.deletePod, { id: pod.id }), null);
  });
});
