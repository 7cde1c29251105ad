// The tools an agent runs itself with (issue 26 §3): pods, a pod draft send, a ring, usage,
// webhook deliveries and cancel, through both SDK client generations. Each answers what the
// matching REST route answers (the same operation's service).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { send, type Line } from '../../../test/support/messages.ts';
import { clientId, ok, podWithLines, type Org } from '../../../test/support/pods.ts';
import { createEndpoint, deliveriesOf, emitEvent } from '../../../test/support/webhooks.ts';
import { MCP_SCOPES } from './scopes.ts';
import { SDK_CLIENTS, startListening, structured, useMcpClient } from '../../../test/support/mcp-client.ts';

for (const { sdk, connect } of SDK_CLIENTS) {
  describe(`the agent's own tools through the ${sdk} SDK client`, () => {
    let org: Org;
    let podLines: Line[];
    let pod: { id: string; cell_ids: string[] };
    const { t, client } = useMcpClient(connect, async (app) => {
      ({ org, lines: podLines, pod } = await podWithLines(app, 2));
      return org.apiKey;
    });

    it('list_pods lists the pods with their cells, as GET /v1/pods', async () => {
      const result = await client.callTool('list_pods', {});
      assert.equal(result.isError, undefined, JSON.stringify(result));
      assert.deepEqual(structured(result), await ok(t, org, 'GET', '/v1/pods'));
      assert.deepEqual(
        structured(result).pods.map((p: { id: string }) => p.id),
        [pod.id],
      );
    });

    it('send_from_pod sends a pod draft from a pod cell, once per idempotency_key', async () => {
      const draft = await ok(
        t,
        org,
        'POST',
        `/v1/pods/${pod.id}/drafts`,
        { client_id: clientId('drf'), to: '+14155550170', body: 'From the pool' },
        201,
      );
      const args = { pod_id: pod.id, draft_id: draft.id, idempotency_key: `pod-send-${sdk}` };
      const first = structured(await client.callTool('send_from_pod', args));
      assert.equal(first.replayed, false);
      assert.equal(first.message.to, '+14155550170');
      assert.equal(first.message.body, 'From the pool');
      assert.equal(first.message.status, 'queued');
      assert.ok(pod.cell_ids.includes(first.message.cell_id), 'sent from a cell of the pod');
      const again = structured(await client.callTool('send_from_pod', args));
      assert.equal(again.replayed, true);
      assert.equal(again.message.id, first.message.id);
      const read = await ok(t, org, 'GET', `/v1/pods/${pod.id}/drafts/${draft.id}`);
      assert.equal(read.status, 'sent');
    });

    it('start_cycle starts a ring over the active cells (no confirmation: a ring is no broadcast)', async () => {
      const result = await client.callTool('start_cycle', { pod_id: pod.id, mode: 'ring' });
      assert.equal(result.isError, undefined, JSON.stringify(result));
      const { job, replayed } = structured(result);
      assert.equal(replayed, false);
      assert.equal(job.mode, 'ring');
      assert.equal(job.pod_id, pod.id);
      assert.equal(job.counts.total, 2);
      assert.deepEqual(job, await ok(t, org, 'GET', `/v1/pods/${pod.id}/jobs/${job.id}`));
    });

    it("start_cycle with the client_id of a REST job answers that job as a replay (the REST operation's rule)", async () => {
      const body = { mode: 'ring', client_id: clientId(`ring-${sdk}`) };
      const rest = await ok(t, org, 'POST', `/v1/pods/${pod.id}/messages/cycle`, body, 202);
      const result = await client.callTool('start_cycle', { pod_id: pod.id, ...body });
      assert.equal(result.isError, undefined, JSON.stringify(result));
      const { job, replayed } = structured(result);
      assert.equal(replayed, true);
      assert.equal(job.id, rest.id);
    });

    it('get_usage answers the usage summary, as GET /v1/usage/summary', async () => {
      const result = await client.callTool('get_usage', {});
      assert.equal(result.isError, undefined, JSON.stringify(result));
      const summary = structured(result);
      assert.deepEqual(summary, await ok(t, org, 'GET', '/v1/usage/summary'));
      const sms = summary.by_type.find((row: { type: string }) => row.type === 'sms');
      assert.ok(sms.quantity >= 1, 'the pod send is counted');
    });

    it('list_webhook_deliveries lists the deliveries of an endpoint, as its REST route', async () => {
      const endpoint = await createEndpoint(t, org.headers, 'http://127.0.0.1:9/hook');
      await emitEvent(t, org.organizationId, 'cell.updated', { id: podLines[0].cell.id });
      const result = await client.callTool('list_webhook_deliveries', { webhook_id: endpoint.id });
      assert.equal(result.isError, undefined, JSON.stringify(result));
      const page = structured(result);
      assert.equal(page.deliveries.length, 1);
      assert.equal(page.deliveries[0].event_type, 'cell.updated');
      assert.deepEqual(page, await deliveriesOf(t, org.headers, endpoint.id));
    });

    it('cancel_message cancels a queued message', async () => {
      const response = await send(t, podLines[1], { to: '+14155550171', body: 'never mind' });
      assert.equal(response.statusCode, 202, response.body);
      const queued = response.json();
      const result = await client.callTool('cancel_message', { cell_id: podLines[1].cell.id, message_id: queued.id });
      assert.equal(result.isError, undefined, JSON.stringify(result));
      assert.equal(structured(result).message.id, queued.id);
      assert.equal(structured(result).message.status, 'canceled');
      const read = await ok(t, org, 'GET', `/v1/cells/${podLines[1].cell.id}/messages/${queued.id}`);
      assert.equal(read.status, 'canceled');
    });
  });
}

describe('the scopes of the agent tools', () => {
  it('are named by the protected-resource metadata of /mcp', async () => {
    const t = await startListening();
    try {
      const response = await t.app.inject({ url: '/.well-known/oauth-protected-resource/mcp' });
      assert.equal(response.statusCode, 200);
      const scopes = response.json().scopes_supported as string[];
      for (const scope of ['usage:read', 'webhooks:write', 'messages:send', 'cells:read'])
        assert.ok(scopes.includes(scope), scope);
      assert.deepEqual(scopes, [...MCP_SCOPES]);
    } finally {
      await t.close();
    }
  });
});
