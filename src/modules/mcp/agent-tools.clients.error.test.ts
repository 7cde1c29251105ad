// Errors of the agent's own tools (issue 26 §3) through both SDK client generations: another
// organization's ids are not_found, bad arguments invalid_request naming the field, and the
// service's refusals (a message no longer queued, a draft already sent) their documented codes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { send, type Line } from '../../../test/support/messages.ts';
import { clientId, ok, podWithLines, type Org } from '../../../test/support/pods.ts';
import { createEndpoint } from '../../../test/support/webhooks.ts';
import { SDK_CLIENTS, toolErrorOf, useMcpClient } from '../../../test/support/mcp-client.ts';

for (const { sdk, connect } of SDK_CLIENTS) {
  describe(`errors of the agent's own tools through the ${sdk} SDK client`, () => {
    let org: Org;
    let pod: { id: string };
    let other: { org: Org; lines: Line[]; pod: { id: string } };
    const { t, client } = useMcpClient(connect, async (app) => {
      ({ org, pod } = await podWithLines(app, 2));
      other = await podWithLines(app, 2);
      return org.apiKey;
    });

    const refused = async (name: string, args: Record<string, unknown>, code: string, field?: string) => {
      const error = toolErrorOf(await client.callTool(name, args));
      assert.equal(error.code, code, JSON.stringify(error));
      if (field !== undefined) assert.equal(error.field, field, JSON.stringify(error));
      return error;
    };

    it("answers not_found for another organization's pod, draft, webhook, cell and message", async () => {
      const draft = await ok(
        t,
        other.org,
        'POST',
        `/v1/pods/${other.pod.id}/drafts`,
        { client_id: clientId('drf'), to: '+14155550180', body: 'theirs' },
        201,
      );
      await refused('send_from_pod', { pod_id: other.pod.id, draft_id: draft.id }, 'not_found');
      await refused('send_from_pod', { pod_id: pod.id, draft_id: draft.id }, 'not_found');
      await refused('start_cycle', { pod_id: other.pod.id, mode: 'ring' }, 'not_found');
      const hook = await createEndpoint(t, other.org.headers, 'http://127.0.0.1:9/hook');
      await refused('list_webhook_deliveries', { webhook_id: hook.id }, 'not_found');
      const theirs = (await send(t, other.lines[0], { to: '+14155550181', body: 'theirs' })).json();
      await refused('cancel_message', { cell_id: other.lines[0].cell.id, message_id: theirs.id }, 'not_found');
      const read = await ok(t, other.org, 'GET', `/v1/cells/${other.lines[0].cell.id}/messages/${theirs.id}`);
      assert.equal(read.status, 'queued', 'still queued');
    });

    it('answers invalid_request naming the field for bad arguments', async () => {
      await refused('list_pods', { limit: 0 }, 'invalid_request', 'limit');
      await refused('list_pods', { cursor: 'not a cursor' }, 'invalid_request', 'cursor');
      await refused('send_from_pod', { pod_id: pod.id }, 'invalid_request', 'draft_id');
      await refused('send_from_pod', { pod_id: pod.id, draft_id: '' }, 'invalid_request', 'draft_id');
      await refused('start_cycle', { pod_id: pod.id, mode: 'spiral' }, 'invalid_request', 'mode');
      await refused('start_cycle', { pod_id: pod.id, mode: 'ring', extra: 1 }, 'invalid_request');
      await refused('get_usage', { from: 'yesterday' }, 'invalid_request', 'from');
      await refused('list_webhook_deliveries', {}, 'invalid_request', 'webhook_id');
      await refused('cancel_message', { cell_id: 'cell_x' }, 'invalid_request', 'message_id');
    });

    it('answers conflict for a message no longer queued and a draft already sent', async () => {
      const [line] = (await podWithLines(t, 1)).lines;
      const own = await connect(t, line.org.apiKey);
      try {
        const queued = (await send(t, line, { to: '+14155550182', body: 'once' })).json();
        const args = { cell_id: line.cell.id, message_id: queued.id };
        assert.equal((await own.callTool('cancel_message', args)).isError, undefined);
        assert.equal(toolErrorOf(await own.callTool('cancel_message', args)).code, 'conflict');
      } finally {
        await own.close();
      }
      const draft = await ok(
        t,
        org,
        'POST',
        `/v1/pods/${pod.id}/drafts`,
        { client_id: clientId('drf'), to: '+14155550183', body: 'once' },
        201,
      );
      assert.equal((await client.callTool('send_from_pod', { pod_id: pod.id, draft_id: draft.id })).isError, undefined);
      await refused('send_from_pod', { pod_id: pod.id, draft_id: draft.id }, 'conflict');
    });
  });
}
