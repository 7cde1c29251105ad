import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/client';
import { activeLine, claim, inbound, report, type Line } from '../../../test/support/messages.ts';
import { TOOL_SCOPES } from './scopes.ts';
import { mcpClient, startListening, structured, type McpTestApp } from '../../../test/support/mcp-client.ts';

describe('POST /mcp with an API key', () => {
  let t: McpTestApp;
  let line: Line;
  let client: Client;
  before(async () => {
    t = await startListening();
    line = await activeLine(t);
    client = await mcpClient(t, line.org.apiKey);
  });
  after(async () => {
    await client?.close();
    await t?.close();
  });

  it('lists the tools with schemas and annotations', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name).sort();
    assert.deepEqual(names, [
      'cancel_message',
      'create_cell',
      'get_billing',
      'get_conversation',
      'get_status',
      'get_usage',
      'list_cells',
      'list_conversations',
      'list_messages',
      'list_pods',
      'list_webhook_deliveries',
      'pay',
      'send_from_pod',
      'send_message',
      'start_cycle',
      'verify_organization',
      'wait_for_code',
      'wait_for_delivery',
      'wait_for_reply',
    ]);
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.ok(tool.outputSchema, `${tool.name} has an output schema`);
      assert.equal(typeof tool.annotations?.readOnlyHint, 'boolean', tool.name);
    }
    const send = tools.find((tool) => tool.name === 'send_message');
    assert.deepEqual(send?.inputSchema.required?.slice().sort(), ['body', 'cell_id', 'idempotency_key', 'to']);
    assert.equal(send?.annotations?.readOnlyHint, false);
  });

  it('lists in the MCP protected-resource metadata exactly the scopes the tools use', async () => {
    const metadata = (await (await fetch(`${t.origin}/.well-known/oauth-protected-resource/mcp`)).json()) as {
      scopes_supported: string[];
    };
    const used = [...new Set(Object.values(TOOL_SCOPES).filter((scope) => scope !== null))].sort();
    assert.deepEqual(metadata.scopes_supported, used);
    assert.deepEqual(used, [
      'billing:read',
      'billing:write',
      'cells:read',
      'cells:write',
      'messages:read',
      'messages:send',
      'usage:read',
      'webhooks:write',
    ]);
    const rest = (await (await fetch(`${t.origin}/.well-known/oauth-protected-resource/v1`)).json()) as {
      scopes_supported: string[];
    };
    assert.ok(rest.scopes_supported.length > used.length, 'the REST API lists every scope');
  });

  it('lists cells and answers the agent status', async () => {
    const cells = structured(await client.callTool({ name: 'list_cells', arguments: {} }));
    assert.deepEqual(
      cells.cells.map((c: { id: string }) => c.id),
      [line.cell.id],
    );
    const status = await client.callTool({ name: 'get_status', arguments: {} });
    assert.equal(status.isError, undefined);
    assert.equal(structured(status).cells.active, 1);
  });

  it('texts a number, a phone replies, and wait_for_reply returns the reply', async () => {
    const sent = await client.callTool({
      name: 'send_message',
      arguments: {
        cell_id: line.cell.id,
        to: '+1 415 555 0199',
        body: 'Table for two at 8?',
        idempotency_key: 'dinner-1',
      },
    });
    assert.equal(sent.isError, undefined, JSON.stringify(sent));
    const message = structured(sent).message;
    assert.equal(message.to, '+14155550199');
    assert.equal(message.status, 'queued');
    assert.match((sent.content as { text: string }[])[0].text, /Queued msg_/);

    const waiting = client.callTool({
      name: 'wait_for_reply',
      arguments: { cell_id: line.cell.id, participant: '+14155550199', timeout_s: 30 },
    });
    // Let the wait subscribe before the phone answers (it would find the reply in the database anyway).
    await new Promise((resolve) => setImmediate(resolve));
    const uploaded = await inbound(t, line, { from: '+14155550199', body: 'Yes, see you then' });
    assert.equal(uploaded.statusCode, 201, uploaded.body);
    const reply = structured(await waiting);
    assert.equal(reply.message.body, 'Yes, see you then');
    assert.equal(reply.message.direction, 'inbound');
    assert.equal(reply.next_since, reply.message.id);

    const conversation = structured(
      await client.callTool({
        name: 'get_conversation',
        arguments: { cell_id: line.cell.id, participant: '+14155550199' },
      }),
    );
    assert.deepEqual(
      conversation.messages.map((m: { body: string }) => m.body),
      ['Yes, see you then', 'Table for two at 8?'],
    );
    const conversations = structured(
      await client.callTool({ name: 'list_conversations', arguments: { cell_id: line.cell.id } }),
    );
    assert.equal(conversations.conversations.length, 1);
  });

  it('wait_for_reply finds a reply that arrived before the call, after since', async () => {
    const before = t.clock.now().toISOString();
    t.clock.advance(1000);
    await inbound(t, line, { from: '+14155550142', body: 'first' });
    t.clock.advance(1000);
    await inbound(t, line, { from: '+14155550142', body: 'second' });
    const first = structured(
      await client.callTool({
        name: 'wait_for_reply',
        arguments: { cell_id: line.cell.id, participant: '+14155550142', since: before, timeout_s: 1 },
      }),
    );
    assert.equal(first.message.body, 'first');
    const second = structured(
      await client.callTool({
        name: 'wait_for_reply',
        arguments: { cell_id: line.cell.id, participant: '+14155550142', since: first.next_since, timeout_s: 1 },
      }),
    );
    assert.equal(second.message.body, 'second');
  });

  it('replays a send_message retried with the same idempotency_key', async () => {
    const args = { cell_id: line.cell.id, to: '+14155550177', body: 'Only once', idempotency_key: 'once-1' };
    const first = structured(await client.callTool({ name: 'send_message', arguments: args }));
    const again = await client.callTool({ name: 'send_message', arguments: { ...args, to: '+1 (415) 555-0177' } });
    assert.equal(again.isError, undefined, JSON.stringify(again));
    assert.equal(structured(again).message.id, first.message.id);
    assert.equal(structured(again).replayed, true);
    const list = structured(
      await client.callTool({
        name: 'list_messages',
        arguments: { cell_id: line.cell.id, participant: '+14155550177' },
      }),
    );
    assert.equal(list.messages.length, 1, 'sent once');
  });

  it('wait_for_delivery returns when the phone reports delivery', async () => {
    const sent = structured(
      await client.callTool({
        name: 'send_message',
        arguments: { cell_id: line.cell.id, to: '+14155550188', body: 'Track me', idempotency_key: 'track-1' },
      }),
    );
    const id = sent.message.id;
    const waiting = client.callTool({ name: 'wait_for_delivery', arguments: { message_id: id, timeout_s: 30 } });
    const claimed = await claim(t, line);
    assert.ok(claimed.some((m) => m.id === id));
    assert.equal((await report(t, line, id, { event: 'delivered' })).statusCode, 200);
    const result = structured(await waiting);
    assert.equal(result.final, true);
    assert.equal(result.message.status, 'delivered');
  });

  it('lists messages a page at a time with the cursor', async () => {
    const first = structured(
      await client.callTool({ name: 'list_messages', arguments: { cell_id: line.cell.id, limit: 2 } }),
    );
    assert.equal(first.messages.length, 2);
    assert.ok(first.next_cursor);
    const second = structured(
      await client.callTool({
        name: 'list_messages',
        arguments: { cell_id: line.cell.id, limit: 2, cursor: first.next_cursor },
      }),
    );
    assert.notEqual(second.messages[0].id, first.messages[0].id);
  });
});
