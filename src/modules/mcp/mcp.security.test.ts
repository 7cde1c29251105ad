import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeLine, inbound, type Line } from '../../../test/support/messages.ts';
import { authorize, consent, pkce, postForm, REDIRECT, registerPublic } from '../oauth/test-client.ts';
import { mcpClient, startListening, structured, type McpTestApp } from './test-client.ts';

/** An OAuth access token of `line`'s organization for `resource` with `scope`. */
async function accessToken(t: McpTestApp, line: Line, resource: string, scope: string) {
  const client = await registerPublic(t);
  const { verifier, challenge } = pkce();
  const authorized = await authorize(t, {
    response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 's', scope, resource,
  });
  assert.equal(authorized.statusCode, 303, authorized.body);
  const requestId = new URL(String(authorized.headers.location)).searchParams.get('request') as string;
  const code = (await consent(t, line.org.headers, requestId)).searchParams.get('code') as string;
  const response = await postForm(t, '/oauth/token', { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: client.client_id, resource });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().access_token as string;
}

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

describe('POST /mcp credentials and isolation', () => {
  let t: McpTestApp;
  let line: Line;
  let other: Line;
  before(async () => {
    t = await startListening();
    line = await activeLine(t);
    other = await activeLine(t);
  });
  after(() => t?.close());

  const post = (headers: Record<string, string>) => fetch(`${t.origin}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: INIT,
  });

  it('answers 401 without a credential, pointing at the MCP protected-resource metadata', async () => {
    const response = await post({});
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), `Bearer resource_metadata="${t.origin}/.well-known/oauth-protected-resource/mcp", scope="cells:read cells:write messages:read messages:send"`);
    assert.equal(((await response.json()) as { code: string }).code, 'unauthenticated');
  });

  it('answers 401 to an unknown API key, and the SDK client fails to connect', async () => {
    assert.equal((await post({ authorization: 'Bearer cg_live_0000000000000000000000000000000x' })).status, 401);
    await assert.rejects(mcpClient(t, 'cg_live_0000000000000000000000000000000x'));
  });

  it('refuses an OAuth token issued for the REST API (another resource)', async () => {
    const token = await accessToken(t, line, `${t.origin}/v1`, 'cells:read');
    const response = await post({ authorization: `Bearer ${token}` });
    assert.equal(response.status, 401);
    assert.match(String(response.headers.get('www-authenticate')), /error="invalid_token"/);
  });

  it('takes an OAuth token for the MCP endpoint, and a tool outside its scopes is a tool error naming the scope', async () => {
    const token = await accessToken(t, line, `${t.origin}/mcp`, 'cells:read');
    const client = await mcpClient(t, token);
    try {
      const cells = await client.callTool({ name: 'list_cells', arguments: {} });
      assert.equal(cells.isError, undefined);
      assert.equal(structured(cells).cells[0].id, line.cell.id);
      const send = await client.callTool({ name: 'send_message', arguments: { cell_id: line.cell.id, to: '+14155550199', body: 'hi', idempotency_key: 'scoped' } });
      assert.equal(send.isError, true);
      assert.equal(structured(send).error.code, 'insufficient_scope');
      assert.match(JSON.stringify(send.content), /messages:send/);
    } finally {
      await client.close();
    }
  });

  it('refuses a Host that is neither the base URL nor loopback (DNS rebinding)', async () => {
    const { request } = await import('node:http');
    const url = new URL(`${t.origin}/mcp`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: '/mcp', method: 'POST', headers: { host: 'evil.example', authorization: `Bearer ${line.org.apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(INIT);
    });
    assert.equal(status, 403);
  });

  it('refuses a browser Origin of another site', async () => {
    const response = await post({ authorization: `Bearer ${line.org.apiKey}`, origin: 'https://evil.example' });
    assert.equal(response.status, 403);
  });

  it('never shows one organization another organization\'s cells, messages or conversations', async () => {
    await inbound(t, other, { from: '+14155550166', body: 'secret of the other organization' });
    const client = await mcpClient(t, line.org.apiKey);
    try {
      const cells = structured(await client.callTool({ name: 'list_cells', arguments: {} }));
      assert.deepEqual(cells.cells.map((c: { id: string }) => c.id), [line.cell.id]);
      const foreign = other.cell.id;
      const calls: [string, Record<string, unknown>][] = [
        ['list_messages', { cell_id: foreign }],
        ['list_conversations', { cell_id: foreign }],
        ['get_conversation', { cell_id: foreign, participant: '+14155550166' }],
        ['wait_for_reply', { cell_id: foreign, timeout_s: 1 }],
        ['send_message', { cell_id: foreign, to: '+14155550166', body: 'x', idempotency_key: 'foreign' }],
      ];
      for (const [name, args] of calls) {
        const result = await client.callTool({ name, arguments: args });
        assert.equal(result.isError, true, name);
        assert.equal(structured(result).error.code, 'not_found', name);
        assert.doesNotMatch(JSON.stringify(result), /secret of the other/, name);
      }
      const owner = await mcpClient(t, other.org.apiKey);
      const theirs = structured(await owner.callTool({ name: 'list_messages', arguments: { cell_id: foreign } }));
      await owner.close();
      const delivery = await client.callTool({ name: 'wait_for_delivery', arguments: { message_id: theirs.messages[0].id, timeout_s: 1 } });
      assert.equal(structured(delivery).error.code, 'not_found');
    } finally {
      await client.close();
    }
  });

  it('refuses a key revoked between two calls of one client', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/auth/keys', headers: line.org.headers, payload: {} });
    assert.equal(created.statusCode, 201, created.body);
    const { id, api_key } = created.json();
    const client = await mcpClient(t, api_key);
    try {
      assert.equal((await client.callTool({ name: 'list_cells', arguments: {} })).isError, undefined);
      const revoked = await t.app.inject({ method: 'DELETE', url: `/v1/auth/keys/${id}`, headers: line.org.headers });
      assert.ok(revoked.statusCode < 300, revoked.body);
      await assert.rejects(client.callTool({ name: 'list_cells', arguments: {} }));
    } finally {
      await client.close().catch(() => {});
    }
  });
});
