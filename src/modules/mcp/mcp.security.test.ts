import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeLine, inbound, type Line } from '../../../test/support/messages.ts';
import { authorize, consent, pkce, postForm, REDIRECT, registerPublic } from '../../../test/support/oauth-client.ts';
import {
  Client,
  InsufficientScopeError,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientProvider,
  type OAuthTokens,
} from '@modelcontextprotocol/client';
import {
  mcpClient,
  mcpClientV1,
  startListening,
  structured,
  toolErrorOf,
  type McpTestApp,
} from '../../../test/support/mcp-client.ts';

/** An OAuth access token of `line`'s organization for `resource` with `scope`. */
async function accessToken(t: McpTestApp, line: Line, resource: string, scope: string, clientId?: string) {
  const client = clientId ? { client_id: clientId } : await registerPublic(t);
  const { verifier, challenge } = pkce();
  const authorized = await authorize(t, {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 's',
    scope,
    resource,
  });
  assert.equal(authorized.statusCode, 303, authorized.body);
  const requestId = new URL(String(authorized.headers.location)).searchParams.get('request') as string;
  const code = (await consent(t, line.org.headers, requestId)).searchParams.get('code') as string;
  const response = await postForm(t, '/oauth/token', {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT,
    client_id: client.client_id,
    resource,
  });
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

  const post = (headers: Record<string, string>) =>
    fetch(`${t.origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: INIT,
    });

  it('answers 401 without a credential, pointing at the MCP protected-resource metadata', async () => {
    const response = await post({});
    assert.equal(response.status, 401);
    assert.equal(
      response.headers.get('www-authenticate'),
      `Bearer resource_metadata="${t.origin}/.well-known/oauth-protected-resource/mcp", scope="billing:read billing:write cells:read cells:write messages:read messages:send usage:read webhooks:write"`,
    );
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

  it('answers a tool outside the token scopes with HTTP 403 and an insufficient_scope challenge, before the tool runs', async () => {
    const token = await accessToken(t, line, `${t.origin}/mcp`, 'cells:read');
    const call = (name: string, args: Record<string, unknown>) =>
      fetch(`${t.origin}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } }),
      });
    const refused = await call('send_message', {
      cell_id: line.cell.id,
      to: '+14155550199',
      body: 'hi',
      idempotency_key: 'scoped-raw',
    });
    assert.equal(refused.status, 403);
    assert.equal(
      refused.headers.get('www-authenticate'),
      `Bearer error="insufficient_scope", scope="cells:read messages:send", resource_metadata="${t.origin}/.well-known/oauth-protected-resource/mcp"`,
    );
    const problem = (await refused.json()) as { code: string; scope: string };
    assert.equal(problem.code, 'insufficient_scope');
    assert.equal(problem.scope, 'messages:send');
    const messages = await t.app.inject({ url: `/v1/cells/${line.cell.id}/messages`, headers: line.org.headers });
    assert.deepEqual(messages.json().messages, [], 'nothing was sent');
    // A tool within the scopes, and one that needs none, run.
    assert.equal((await call('list_cells', {})).status, 200);
    assert.equal((await call('get_status', {})).status, 200);
  });

  it('surfaces the step-up challenge to the v2 SDK client (no OAuth provider) and to the v1 SDK client', async () => {
    const token = await accessToken(t, line, `${t.origin}/mcp`, 'cells:read');
    const v2 = await mcpClient(t, token);
    const v1 = await mcpClientV1(t, token);
    try {
      assert.equal(structured(await v2.callTool({ name: 'list_cells', arguments: {} })).cells[0].id, line.cell.id);
      const args = { cell_id: line.cell.id, to: '+14155550199', body: 'hi', idempotency_key: 'scoped' };
      await assert.rejects(v2.callTool({ name: 'send_message', arguments: args }), (error: unknown) => {
        assert.ok(error instanceof InsufficientScopeError, String(error));
        assert.equal(error.requiredScope, 'cells:read messages:send');
        assert.equal(String(error.resourceMetadataUrl), `${t.origin}/.well-known/oauth-protected-resource/mcp`);
        return true;
      });
      assert.equal(structured(await v1.callTool('list_cells', {})).cells[0].id, line.cell.id);
      await assert.rejects(v1.callTool('send_message', args), /403/);
    } finally {
      await v2.close();
      await v1.close();
    }
  });

  it('lets the v2 SDK client step up by itself: it re-authorizes for the union of scopes, then the call goes through', async () => {
    const registered = await registerPublic(t);
    const token = await accessToken(t, line, `${t.origin}/mcp`, 'cells:read', registered.client_id);
    let tokens: OAuthTokens = { access_token: token, token_type: 'Bearer', scope: 'cells:read' };
    let verifier = '';
    let authorization: URL | undefined;
    const provider: OAuthClientProvider = {
      redirectUrl: REDIRECT,
      clientMetadata: {
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        client_name: 'Test MCP client',
      },
      clientInformation: () => ({ client_id: registered.client_id }),
      tokens: () => tokens,
      saveTokens: (saved) => {
        tokens = saved;
      },
      redirectToAuthorization: (url) => {
        authorization = url;
      },
      saveCodeVerifier: (saved) => {
        verifier = saved;
      },
      codeVerifier: () => verifier,
    };
    const transport = new StreamableHTTPClientTransport(new URL(`${t.origin}/mcp`), { authProvider: provider });
    const client = new Client({ name: 'cellgate-step-up', version: '1.0.0' });
    try {
      await client.connect(transport);
      assert.equal(structured(await client.callTool({ name: 'list_cells', arguments: {} })).cells[0].id, line.cell.id);
      const args = { cell_id: line.cell.id, to: '+14155550199', body: 'after step-up', idempotency_key: 'step-up' };
      await assert.rejects(client.callTool({ name: 'send_message', arguments: args }), UnauthorizedError);
      // The client sent its user to consent to the scopes it holds and the one it lacked, for /mcp.
      assert.ok(authorization, 'the client started an authorization');
      assert.equal(authorization.searchParams.get('scope'), 'cells:read messages:send');
      assert.equal(authorization.searchParams.get('resource'), `${t.origin}/mcp`);
      const started = await t.app.inject({ url: `${authorization.pathname}${authorization.search}` });
      assert.equal(started.statusCode, 303, started.body);
      const requestId = new URL(String(started.headers.location)).searchParams.get('request') as string;
      await transport.finishAuth((await consent(t, line.org.headers, requestId)).searchParams);
      assert.equal(tokens.scope, 'cells:read messages:send');
      const sent = await client.callTool({ name: 'send_message', arguments: args });
      assert.equal(sent.isError, undefined, JSON.stringify(sent));
      assert.equal(structured(sent).message.body, 'after step-up');
    } finally {
      await client.close();
    }
  });

  it('refuses a Host that is neither the base URL nor loopback (DNS rebinding)', async () => {
    const { request } = await import('node:http');
    const url = new URL(`${t.origin}/mcp`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: '/mcp',
          method: 'POST',
          headers: {
            host: 'evil.example',
            authorization: `Bearer ${line.org.apiKey}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(INIT);
    });
    assert.equal(status, 403);
  });

  it('refuses a browser Origin of another site', async () => {
    const response = await post({ authorization: `Bearer ${line.org.apiKey}`, origin: 'https://evil.example' });
    assert.equal(response.status, 403);
  });

  it("never shows one organization another organization's cells, messages or conversations", async () => {
    await inbound(t, other, { from: '+14155550166', body: 'secret of the other organization' });
    const client = await mcpClient(t, line.org.apiKey);
    try {
      const cells = structured(await client.callTool({ name: 'list_cells', arguments: {} }));
      assert.deepEqual(
        cells.cells.map((c: { id: string }) => c.id),
        [line.cell.id],
      );
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
        assert.equal(toolErrorOf(result).code, 'not_found', name);
        assert.doesNotMatch(JSON.stringify(result), /secret of the other/, name);
      }
      const owner = await mcpClient(t, other.org.apiKey);
      const theirs = structured(await owner.callTool({ name: 'list_messages', arguments: { cell_id: foreign } }));
      await owner.close();
      const delivery = await client.callTool({
        name: 'wait_for_delivery',
        arguments: { message_id: theirs.messages[0].id, timeout_s: 1 },
      });
      assert.equal(toolErrorOf(delivery).code, 'not_found');
    } finally {
      await client.close();
    }
  });

  it('refuses a key revoked between two calls of one client', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/keys',
      headers: line.org.headers,
      payload: {},
    });
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
