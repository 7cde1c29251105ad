import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/client';
import { BASE_PAY_TO } from '../../../test/support/billing.ts';
import { activeLine, type Line } from '../../../test/support/messages.ts';
import { mcpClient, startListening, structured, type McpTestApp } from './test-client.ts';

describe('POST /mcp bad input', () => {
  let t: McpTestApp;
  let line: Line;
  let client: Client;
  before(async () => {
    // x402 configured, so a 402 carries the x402 PaymentRequired too.
    t = await startListening({ env: { CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO } });
    line = await activeLine(t);
    client = await mcpClient(t, line.org.apiKey);
  });
  after(async () => {
    await client?.close();
    await t?.close();
  });

  const post = (body: string) => fetch(`${t.origin}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${line.org.apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
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
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'send_message', arguments: { cell_id: line.cell.id, to: '+14155550100', body: 'x'.repeat(300 * 1024), idempotency_key: 'huge' } } };
    const response = await post(JSON.stringify(call));
    assert.equal(response.status, 413);
    const long = await client.callTool({ name: 'send_message', arguments: { cell_id: line.cell.id, to: '+14155550100', body: 'x'.repeat(1601), idempotency_key: 'long' } });
    assert.equal(long.isError, true);
    const listed = await client.callTool({ name: 'list_messages', arguments: { cell_id: line.cell.id } });
    assert.deepEqual(structured(listed).messages, [], 'nothing was sent');
  });

  it('answers an unknown tool with an error, not a 500', async () => {
    const result = await client.callTool({ name: 'launch_rocket', arguments: {} }).catch((error: Error) => ({ isError: true, thrown: error.message }));
    assert.equal(result.isError, true);
    assert.match(JSON.stringify(result), /launch_rocket/);
  });

  it('answers arguments that fail the schema with a tool error naming the field', async () => {
    const result = await client.callTool({ name: 'send_message', arguments: { cell_id: line.cell.id, to: '+14155550199', body: 'no key' } });
    assert.equal(result.isError, true);
    assert.match(JSON.stringify(result.content), /idempotency_key/);
  });

  it('answers timeout_s out of range with a tool error', async () => {
    for (const timeout_s of [0, 51]) {
      const result = await client.callTool({ name: 'wait_for_reply', arguments: { cell_id: line.cell.id, timeout_s } });
      assert.equal(result.isError, true, `timeout_s ${timeout_s}`);
      assert.match(JSON.stringify(result.content), /timeout_s/);
    }
  });

  it('answers an invalid phone number with the service error and its field', async () => {
    const result = await client.callTool({ name: 'send_message', arguments: { cell_id: line.cell.id, to: 'not a phone', body: 'x', idempotency_key: 'bad-phone' } });
    assert.equal(result.isError, true);
    assert.equal(structured(result).error.code, 'invalid_request');
    assert.equal(structured(result).error.errors[0].field, 'to');
  });

  it('refuses the same idempotency_key with other arguments', async () => {
    const args = { cell_id: line.cell.id, to: '+14155550111', body: 'first body', idempotency_key: 'reuse-1' };
    assert.equal((await client.callTool({ name: 'send_message', arguments: args })).isError, undefined);
    const reused = await client.callTool({ name: 'send_message', arguments: { ...args, body: 'another body' } });
    assert.equal(reused.isError, true);
    assert.equal(structured(reused).error.code, 'idempotency_key_reused');
  });

  it('answers a wait with no reply with next_since to call again', async () => {
    const since = t.clock.now().toISOString();
    const result = structured(await client.callTool({ name: 'wait_for_reply', arguments: { cell_id: line.cell.id, participant: '+14155550100', since, timeout_s: 1 } }));
    assert.equal(result.message, null);
    assert.match(result.next_since, /^msg_/);
  });

  it('answers create_cell that billing refuses with the PaymentDetails, a checkout URL and the x402 PaymentRequired', async () => {
    const { verifiedOrganization } = await import('../../../test/harness.ts');
    const unpaid = await verifiedOrganization(t);
    const other = await mcpClient(t, unpaid.apiKey);
    try {
      const result = await other.callTool({ name: 'create_cell', arguments: { display_name: 'Sales' } });
      assert.equal(result.isError, true);
      const error = structured(result).error;
      assert.equal(error.code, 'payment_required');
      assert.equal(error.payment.intent, 'setup');
      assert.match(error.payment.checkout_url, /\/v1\/billing\/checkout\/pay_/);
      assert.equal(error.x402_payment_required.x402Version, 2);
      assert.match(error.x402_payment_required.resource.url, /\/mcp$/);
      assert.equal(error.x402_payment_required.accepts[0].amount, '20000000');
    } finally {
      await other.close();
    }
  });
});
