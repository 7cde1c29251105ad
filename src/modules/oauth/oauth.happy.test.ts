import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, expectProblem, useApp, verifiedOrganization } from '../../../test/harness.ts';
import { rejected, StreamClient, streamUrl } from '../../../test/support/stream-client.ts';
import {
  BASE,
  REDIRECT,
  authorize,
  basic,
  codeFor,
  consent,
  pkce,
  postForm,
  register,
  registerPublic,
  requestIdOf,
  tokensFor,
} from '../../../test/support/oauth-client.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

describe('OAuth discovery', () => {
  const t = useApp();

  it('publishes the authorization server metadata (RFC 8414)', async () => {
    const response = await t.app.inject({ url: '/.well-known/oauth-authorization-server' });
    assert.equal(response.statusCode, 200);
    const metadata = response.json();
    assert.equal(metadata.issuer, BASE);
    assert.equal(metadata.authorization_endpoint, `${BASE}/oauth/authorize`);
    assert.equal(metadata.token_endpoint, `${BASE}/oauth/token`);
    assert.equal(metadata.registration_endpoint, `${BASE}/oauth/register`);
    assert.equal(metadata.introspection_endpoint, `${BASE}/oauth/introspect`);
    assert.equal(metadata.revocation_endpoint, `${BASE}/oauth/revoke`);
    assert.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
    assert.deepEqual(metadata.grant_types_supported, ['authorization_code', 'refresh_token']);
    assert.deepEqual(metadata.response_types_supported, ['code']);
    assert.deepEqual(metadata.token_endpoint_auth_methods_supported, [
      'client_secret_basic',
      'client_secret_post',
      'none',
    ]);
    assert.equal(metadata.authorization_response_iss_parameter_supported, true);
    assert.equal(metadata.client_id_metadata_document_supported, true);
    assert.ok(metadata.scopes_supported.includes('messages:send'));
  });

  it('publishes the protected resource metadata of the REST API and of the MCP endpoint (RFC 9728)', async () => {
    for (const [url, resource] of [
      ['/.well-known/oauth-protected-resource', `${BASE}/v1`],
      ['/.well-known/oauth-protected-resource/v1', `${BASE}/v1`],
      ['/.well-known/oauth-protected-resource/mcp', `${BASE}/mcp`],
    ]) {
      const response = await t.app.inject({ url });
      assert.equal(response.statusCode, 200, url);
      const metadata = response.json();
      assert.equal(metadata.resource, resource);
      assert.deepEqual(metadata.authorization_servers, [BASE]);
      assert.deepEqual(metadata.bearer_methods_supported, ['header']);
      assert.ok(metadata.scopes_supported.includes('cells:read'));
    }
  });

  it("names the resource metadata and the route's scope in the challenge of a 401 on a bearer route", async () => {
    const response = await t.app.inject({ url: '/v1/cells' });
    expectProblem(response, 401, 'unauthenticated');
    assert.equal(
      response.headers['www-authenticate'],
      `Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource", scope="cells:read"`,
    );
  });
});

describe('OAuth flow of a public MCP-style client', () => {
  const t = useApp();
  let org: Org;
  before(async () => {
    org = await verifiedOrganization(t);
  });

  it('registers without a secret, authorizes with PKCE for the MCP resource, and exchanges, refreshes, introspects and revokes', async () => {
    const client = await registerPublic(t);
    assert.match(client.client_id, /^ocl_/);
    assert.equal(client.client_secret, undefined);
    assert.equal(client.token_endpoint_auth_method, 'none');
    assert.equal(typeof client.client_id_issued_at, 'number');

    const { verifier, challenge } = pkce();
    const requestId = requestIdOf(
      await authorize(t, {
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        scope: 'cells:read messages:send',
        state: 'opaque state',
        resource: `${BASE}/mcp`,
      }),
    );

    const read = await t.app.inject({ url: `/v1/oauth/requests/${requestId}`, headers: org.headers });
    assert.equal(read.statusCode, 200, read.body);
    assert.deepEqual(read.json().scopes, ['cells:read', 'messages:send']);
    assert.equal(read.json().client_name, 'Test MCP client');
    assert.equal(read.json().redirect_host, 'app.example.com');
    assert.equal(read.json().resource, `${BASE}/mcp`);

    const redirect = await consent(t, org.headers, requestId);
    assert.equal(`${redirect.origin}${redirect.pathname}`, REDIRECT);
    assert.equal(redirect.searchParams.get('state'), 'opaque state');
    assert.equal(redirect.searchParams.get('iss'), BASE);
    const code = redirect.searchParams.get('code') as string;

    const exchanged = await postForm(t, '/oauth/token', {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      resource: `${BASE}/mcp`,
    });
    assert.equal(exchanged.statusCode, 200, exchanged.body);
    assert.equal(exchanged.headers['cache-control'], 'no-store');
    const tokens = exchanged.json();
    assert.match(tokens.access_token, /^cg_at_[0-9A-Za-z]{32}$/);
    assert.match(tokens.refresh_token, /^cg_rt_[0-9A-Za-z]{32}$/);
    assert.equal(tokens.token_type, 'Bearer');
    assert.equal(tokens.expires_in, 3600);
    assert.equal(tokens.scope, 'cells:read messages:send');

    // An MCP token is not a REST API credential.
    const onRest = await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(tokens.access_token) });
    expectProblem(onRest, 401, 'unauthenticated');

    const refreshed = await postForm(t, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.client_id,
    });
    assert.equal(refreshed.statusCode, 200, refreshed.body);
    const rotated = refreshed.json();
    assert.notEqual(rotated.refresh_token, tokens.refresh_token);
    assert.notEqual(rotated.access_token, tokens.access_token);

    const introspected = await postForm(t, '/oauth/introspect', {
      token: rotated.access_token,
      client_id: client.client_id,
    });
    assert.equal(introspected.statusCode, 200, introspected.body);
    const info = introspected.json();
    assert.equal(info.active, true);
    assert.equal(info.client_id, client.client_id);
    assert.equal(info.scope, 'cells:read messages:send');
    assert.equal(info.aud, `${BASE}/mcp`);
    assert.equal(info.sub, org.organizationId);
    assert.equal(info.iss, BASE);
    assert.equal(info.exp - info.iat, 3600);
    assert.equal(
      (await postForm(t, '/oauth/introspect', { token: tokens.refresh_token, client_id: client.client_id })).json()
        .active,
      false,
      'a rotated refresh token is inactive',
    );

    const revoked = await postForm(t, '/oauth/revoke', { token: rotated.refresh_token, client_id: client.client_id });
    assert.equal(revoked.statusCode, 200, revoked.body);
    for (const token of [rotated.access_token, rotated.refresh_token]) {
      assert.equal(
        (await postForm(t, '/oauth/introspect', { token, client_id: client.client_id })).json().active,
        false,
        'revoking the refresh token revokes the grant',
      );
    }
  });

  it('narrows the scope of an access token on refresh, keeping the grant for the refresh token', async () => {
    const client = await registerPublic(t);
    const tokens = await tokensFor(t, org.headers, client.client_id, { scope: 'cells:read cells:write' });
    const narrowed = await postForm(t, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
      client_id: client.client_id,
      scope: 'cells:read',
    });
    assert.equal(narrowed.statusCode, 200, narrowed.body);
    assert.equal(narrowed.json().scope, 'cells:read');
    const again = await postForm(t, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: narrowed.json().refresh_token,
      client_id: client.client_id,
    });
    assert.equal(again.json().scope, 'cells:read cells:write');
  });

  it('answers access_denied with state and iss when the organization denies', async () => {
    const client = await registerPublic(t);
    const { challenge } = pkce();
    const requestId = requestIdOf(
      await authorize(t, {
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 's1',
      }),
    );
    const redirect = await consent(t, org.headers, requestId, false);
    assert.equal(redirect.searchParams.get('error'), 'access_denied');
    assert.equal(redirect.searchParams.get('state'), 's1');
    assert.equal(redirect.searchParams.get('iss'), BASE);
    assert.equal(redirect.searchParams.get('code'), null);
  });

  it('lets a loopback redirect URI use another port (RFC 8252)', async () => {
    const client = await registerPublic(t, { redirect_uris: ['http://127.0.0.1/callback'] });
    const { challenge } = pkce();
    const response = await authorize(t, {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: 'http://127.0.0.1:53123/callback',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    requestIdOf(response);
  });
});

describe('OAuth flow of a confidential client', () => {
  const t = useApp();
  let org: Org;
  before(async () => {
    org = await verifiedOrganization(t);
  });

  for (const method of ['client_secret_basic', 'client_secret_post'] as const) {
    it(`authenticates with ${method} and calls whoami on /v1 with the access token`, async () => {
      const client = await register(t, {
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: method,
        grant_types: ['authorization_code', 'refresh_token'],
        client_name: `App ${method}`,
      });
      assert.match(client.client_secret as string, /^cg_cs_/);
      assert.equal(client.client_secret_expires_at, 0);
      const secret = client.client_secret as string;
      const auth: { headers: Record<string, string>; fields: Record<string, string> } =
        method === 'client_secret_basic'
          ? { headers: basic(client.client_id, secret), fields: {} }
          : { headers: {}, fields: { client_id: client.client_id, client_secret: secret } };

      const { code, verifier } = await codeFor(t, org.headers, client.client_id, { scope: 'cells:read messages:read' });
      const response = await postForm(
        t,
        '/oauth/token',
        { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, ...auth.fields },
        auth.headers,
      );
      assert.equal(response.statusCode, 200, response.body);
      const tokens = response.json();

      const whoami = await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(tokens.access_token) });
      assert.equal(whoami.statusCode, 200, whoami.body);
      assert.equal(whoami.json().organization_id, org.organizationId);
      assert.equal(whoami.json().credential_type, 'oauth_token');
      assert.deepEqual(whoami.json().scopes, ['cells:read', 'messages:read']);
      assert.deepEqual(whoami.json().client, { id: client.client_id, name: `App ${method}` });
      assert.match(whoami.json().key.id, /^oat_/);

      const cells = await t.app.inject({ url: '/v1/cells', headers: bearer(tokens.access_token) });
      assert.equal(cells.statusCode, 200, cells.body);

      const introspected = await postForm(
        t,
        '/oauth/introspect',
        { token: tokens.access_token, ...auth.fields },
        auth.headers,
      );
      assert.equal(introspected.json().active, true);

      const refreshed = await postForm(
        t,
        '/oauth/token',
        { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, ...auth.fields },
        auth.headers,
      );
      assert.equal(refreshed.statusCode, 200, refreshed.body);

      const revoked = await postForm(
        t,
        '/oauth/revoke',
        { token: refreshed.json().access_token, token_type_hint: 'access_token', ...auth.fields },
        auth.headers,
      );
      assert.equal(revoked.statusCode, 200);
      expectProblem(
        await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(refreshed.json().access_token) }),
        401,
        'unauthenticated',
      );
    });
  }

  it('issues no refresh token to a client that did not register the refresh_token grant', async () => {
    const client = await register(t, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    assert.deepEqual(client.grant_types, ['authorization_code']);
    const tokens = await tokensFor(t, org.headers, client.client_id);
    assert.equal(tokens.refresh_token, undefined);
  });

  it('lists the grants of the organization, and revoking one stops its tokens at once', async () => {
    const client = await registerPublic(t, { client_name: 'Grant lister' });
    const tokens = await tokensFor(t, org.headers, client.client_id, { scope: 'cells:read' });
    const list = await t.app.inject({ url: '/v1/oauth/grants', headers: org.headers });
    assert.equal(list.statusCode, 200, list.body);
    const grant = list.json().grants.find((g: { client_id: string }) => g.client_id === client.client_id);
    assert.ok(grant, list.body);
    assert.match(grant.id, /^grt_/);
    assert.equal(grant.client_name, 'Grant lister');
    assert.deepEqual(grant.scopes, ['cells:read']);
    assert.equal(grant.resource, `${BASE}/v1`);

    assert.equal(
      (await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(tokens.access_token) })).statusCode,
      200,
    );
    const deleted = await t.app.inject({ method: 'DELETE', url: `/v1/oauth/grants/${grant.id}`, headers: org.headers });
    assert.equal(deleted.statusCode, 204, deleted.body);
    expectProblem(
      await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(tokens.access_token) }),
      401,
      'unauthenticated',
    );
    const refreshed = await postForm(t, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
      client_id: client.client_id,
    });
    assert.equal(refreshed.json().error, 'invalid_grant');
    const after = await t.app.inject({ url: '/v1/oauth/grants', headers: org.headers });
    assert.ok(!after.json().grants.some((g: { id: string }) => g.id === grant.id));
    expectProblem(
      await t.app.inject({ method: 'DELETE', url: `/v1/oauth/grants/${grant.id}`, headers: org.headers }),
      404,
      'not_found',
    );
  });
});

describe('OAuth clients identified by a Client ID Metadata Document', () => {
  let org: Org;
  const documentUrl = 'https://client.example.com/oauth/client.json';
  let fetches = 0;
  const t = useApp({
    deps: {
      oauth: {
        lookup: async () => [{ address: '93.184.216.34', family: 4 }],
        fetchDocument: async (url) => {
          fetches += 1;
          assert.equal(url.toString(), documentUrl);
          return {
            status: 200,
            contentType: 'application/json',
            body: JSON.stringify({
              client_id: documentUrl,
              client_name: 'Doc client',
              redirect_uris: [REDIRECT],
              grant_types: ['authorization_code', 'refresh_token'],
              token_endpoint_auth_method: 'none',
            }),
          };
        },
      },
    },
  });
  before(async () => {
    org = await verifiedOrganization(t);
  });

  it('fetches the document once, caches it, and completes the flow with the URL as client_id', async () => {
    const tokens = await tokensFor(t, org.headers, documentUrl, { resource: `${BASE}/mcp` });
    assert.ok(tokens.refresh_token);
    const { challenge } = pkce();
    requestIdOf(
      await authorize(t, {
        response_type: 'code',
        client_id: documentUrl,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
    );
    assert.equal(fetches, 1, 'the cached document is used');
    t.clock.advance(61 * 60 * 1000);
    requestIdOf(
      await authorize(t, {
        response_type: 'code',
        client_id: documentUrl,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
    );
    assert.equal(fetches, 2, 'a stale document is fetched again');
  });
});

describe('OAuth access tokens on the event stream', () => {
  const t = useApp();
  let org: Org;
  before(async () => {
    org = await verifiedOrganization(t);
  });

  it('streams to a token with events:read, refuses one without it (4403), and a revoked one (4401)', async () => {
    const url = await streamUrl(t);
    const client = await registerPublic(t);
    const reader = await tokensFor(t, org.headers, client.client_id, { scope: 'events:read' });
    const stream = await StreamClient.ready(url, { headers: bearer(reader.access_token) });
    stream.close();
    const other = await tokensFor(t, org.headers, client.client_id, { scope: 'cells:read' });
    assert.equal((await rejected(url, { headers: bearer(other.access_token) })).code, 4403);
    const revoked = await postForm(t, '/oauth/revoke', { token: reader.access_token, client_id: client.client_id });
    assert.equal(revoked.statusCode, 200);
    assert.equal((await rejected(url, { headers: bearer(reader.access_token) })).code, 4401);
  });
});
