import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeLine, inbound, type Line } from '../../../test/support/messages.ts';
import { mcpClient, structured, toolErrorOf, useMcpClient } from '../../../test/support/mcp-client.ts';

describe('POST /mcp bad input', () => {
  let line: Line;
  const { t, client } = useMcpClient(mcpClient, async (app) => {
    line = await activeLine(app);
    return line.org.apiKey;
  });

  const post = (body: string) =>
    fetch(`${t.origin}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${line.org.apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body,
    });

  it('answers malformed JSON with a JSON-RPC parse error, not a 500', async () => {
    const response = await post('{"jsonrpc":"2.0",');
    assert.ok(response.status < 500, `status ${response.status}`);
    const body = (await response.json()) as { error: { code: number } };
    assert.equal(body.error.code, -32700);
  });

  it('answers a body that is not JSON-RPC with a JSON-RPC error', async () => {
    const response = await post('{"hello":"world"}');
    assert.ok(response.status < 500, `status ${response.status}`);
    const body = (await response.json()) as { error: { code: number } };
    assert.equal(typeof body.error.code, 'number');
  });

  it('refuses oversize arguments (a body over 256 KiB) with 413 before any tool runs, and a 1,601-character text as a tool error', async () => {
    const call = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: {
        name: 'send_message',
        arguments: { cell_id: line.cell.id, to: '+14155550100', body: 'x'.repeat(300 * 1024), idempotency_key: 'huge' },
      },
    };
    const response = await post(JSON.stringify(call));
    assert.equal(response.status, 413);
    const long = await client.callTool({
      name: 'send_message',
      arguments: { cell_id: line.cell.id, to: '+14155550100', body: 'x'.repeat(1601), idempotency_key: 'long' },
    });
    assert.equal(long.isError, true);
    const listed = await client.callTool({ name: 'list_messages', arguments: { cell_id: line.cell.id } });
    assert.deepEqual(structured(listed).messages, [], 'nothing was sent');
  });

  it('answers an unknown tool with an error, not a 500', async () => {
    const result = await client
      .callTool({ name: 'launch_rocket', arguments: {} })
      .catch((error: Error) => ({ isError: true, thrown: error.message }));
    assert.equal(result.isError, true);
    assert.match(JSON.stringify(result), /launch_rocket/);
  });

  it('answers arguments that fail the schema with a tool error naming the field', async () => {
    const result = await client.callTool({
      name: 'send_message',
      arguments: { cell_id: line.cell.id, to: '+14155550199', body: 'no key' },
    });
    assert.equal(result.isError, true);
    assert.match(JSON.stringify(result.content), /idempotency_key/);
  });

  it('takes wait_for_reply without timeout_s (30 s by default): a reply already there comes at once', async () => {
    const since = t.clock.now().toISOString();
    const upload = await inbound(t, line, { from: '+14155550142', body: 'here already' });
    assert.equal(upload.statusCode, 201, upload.body);
    const reply = structured(
      await client.callTool({ name: 'wait_for_reply', arguments: { cell_id: line.cell.id, since } }),
    ) as { message: { id: string } | null };
    assert.equal(reply.message?.id, upload.json().id);
  });

  it('answers timeout_s out of range with a tool error', async () => {
    for (const timeout_s of [0, 51]) {
      const result = await client.callTool({ name: 'wait_for_reply', arguments: { cell_id: line.cell.id, timeout_s } });
      assert.equal(result.isError, true, `timeout_s ${timeout_s}`);
      assert.match(JSON.stringify(result.content), /timeout_s/);
    }
  });

  it('refuses a since that is neither a message id, a next_since nor an ISO time, naming the field', async () => {
    for (const since of [
      'yesterday',
      'msg_',
      'msg_01m86s4q0',
      'msg_01m86s4q0u',
      'msg_8zzzzzzzzz',
      `msg_01m86s4q06${'u'.repeat(16)}`,
      '2099-13-45T00:00:00Z',
    ]) {
      const error = toolErrorOf(
        await client.callTool({ name: 'wait_for_reply', arguments: { cell_id: line.cell.id, since, timeout_s: 1 } }),
      );
      assert.equal(error.code, 'invalid_request', since);
      assert.equal(error.field, 'since', since);
    }
  });

  it('answers an unexpected failure as internal_error with the request id, never the thrown words; a NUL never reaches the database', async () => {
    const cells = t.services.cells;
    const list = cells.list;
    cells.list = async () => {
      throw new Error('invalid byte sequence for encoding "UTF8": 0x00');
    };
    try {
      const response = await post(
        JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'list_cells', arguments: {} } }),
      );
      assert.equal(response.status, 200);
      const requestId = response.headers.get('x-request-id');
      const text = await response.text();
      assert.doesNotMatch(text, /byte sequence|UTF8/);
      const data = JSON.parse(
        text
          .split('\n')
          .find((l) => l.startsWith('data: '))!
          .slice(6),
      );
      const error = toolErrorOf(data.result);
      assert.equal(error.code, 'internal_error');
      assert.equal(error.request_id, requestId);
    } finally {
      cells.list = list;
    }
    const nul = toolErrorOf(
      await client.callTool({
        name: 'send_message',
        arguments: { cell_id: line.cell.id, to: '+14155550199', body: 'hi\u0000there', idempotency_key: 'nul' },
      }),
    );
    assert.equal(nul.code, 'invalid_request');
    assert.equal(nul.field, 'body');
    assert.equal(nul.errors[0].code, 'invalid_character');
    const listed = await client.callTool({
      name: 'list_messages',
      arguments: { cell_id: line.cell.id, direction: 'outbound' },
    });
    assert.deepEqual(structured(listed).messages, [], 'nothing was queued');
  });
});
