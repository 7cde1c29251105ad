import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, expectProblem, useApp, verifiedOrganization, type TestApp } from '../../../test/harness.ts';
import type { FetchedDocument } from './metadata-document.ts';
import {
  BASE,
  REDIRECT,
  authorize,
  basic,
  codeFor,
  consent,
  expectOAuthError,
  pkce,
  postForm,
  register,
  newRequestId,
  registerPublic,
  requestIdOf,
  tokensFor,
} from '../../../test/support/oauth-client.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

const whoami = (t: TestApp, token: string) => t.app.inject({ url: '/v1/auth/whoami', headers: bearer(token) });

describe('OAuth replay and reuse', () => {
  const t = useApp();
  let org: Org;
  let clientId: string;
  before(async () => {
    org = await verifiedOrganization(t);
    clientId = (await registerPublic(t)).client_id;
  });

  it('rejects a reused authorization code and revokes the tokens its first use issued', async () => {
    const { code, verifier } = await codeFor(t, org.headers, clientId);
    const fields = {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
    };
    const first = await postForm(t, '/oauth/token', fields);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal((await whoami(t, first.json().access_token)).statusCode, 200);
    expectOAuthError(await postForm(t, '/oauth/token', fields), 400, 'invalid_grant');
    expectProblem(await whoami(t, first.json().access_token), 401, 'unauthenticated');
    expectOAuthError(
      await postForm(t, '/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: first.json().refresh_token,
        client_id: clientId,
      }),
      400,
      'invalid_grant',
    );
  });

  it('rejects a reused refresh token and revokes the whole grant, rotated tokens included', async () => {
    const tokens = await tokensFor(t, org.headers, clientId);
    const rotated = await postForm(t, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
      client_id: clientId,
    });
    assert.equal(rotated.statusCode, 200, rotated.body);
    expectOAuthError(
      await postForm(t, '/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token as string,
        client_id: clientId,
      }),
      400,
      'invalid_grant',
    );
    expectProblem(await whoami(t, rotated.json().access_token), 401, 'unauthenticated');
    expectOAuthError(
      await postForm(t, '/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: rotated.json().refresh_token,
        client_id: clientId,
      }),
      400,
      'invalid_grant',
    );
    const grants = await t.app.inject({ url: '/v1/oauth/grants', headers: org.headers });
    assert.equal(grants.json().grants.length, 0, grants.body);
  });

  it('stops an access token after its hour', async () => {
    const tokens = await tokensFor(t, org.headers, clientId);
    t.clock.advance(60 * 60 * 1000);
    expectProblem(await whoami(t, tokens.access_token), 401, 'unauthenticated');
  });
});

describe('OAuth tokens as credentials', () => {
  const t = useApp();
  let org: Org;
  let clientId: string;
  before(async () => {
    org = await verifiedOrganization(t);
    clientId = (await registerPublic(t)).client_id;
  });

  it('answers 403 insufficient_scope naming the scope a token lacks', async () => {
    const tokens = await tokensFor(t, org.headers, clientId, { scope: 'cells:read' });
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: bearer(tokens.access_token),
      payload: { client_id: 'w1', url: 'https://hooks.example.com/' },
    });
    const body = expectProblem(response, 403, 'insufficient_scope');
    assert.match(body.detail, /webhooks:write/);
    assert.equal(body.scope, 'webhooks:write');
    assert.match(String(response.headers['www-authenticate']), /error="insufficient_scope", scope="webhooks:write"/);
  });

  it('refuses a token issued for the MCP endpoint on the REST API, with the resource metadata in the challenge', async () => {
    const tokens = await tokensFor(t, org.headers, clientId, { resource: `${BASE}/mcp` });
    const response = await whoami(t, tokens.access_token);
    expectProblem(response, 401, 'unauthenticated');
    assert.match(
      String(response.headers['www-authenticate']),
      /resource_metadata="http:\/\/cellgate\.test\/\.well-known\/oauth-protected-resource"/,
    );
  });

  it('never lets an access token manage API keys, consent or grants (403 forbidden)', async () => {
    const tokens = await tokensFor(t, org.headers, clientId);
    const headers = bearer(tokens.access_token);
    const requestId = requestIdOf(
      await authorize(t, {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
    );
    for (const [method, url, payload] of [
      ['POST', '/v1/auth/keys', {}],
      ['GET', '/v1/auth/keys', undefined],
      ['POST', '/v1/oauth/consent', { request_id: requestId, approve: true }],
      ['GET', `/v1/oauth/requests/${requestId}`, undefined],
      ['GET', '/v1/oauth/grants', undefined],
    ] as const) {
      expectProblem(await t.app.inject({ method, url, headers, payload }), 403, 'forbidden');
    }
  });

  it('answers 403 when an OAuth token is presented on the admin surface', async () => {
    const tokens = await tokensFor(t, org.headers, clientId);
    expectProblem(
      await t.app.inject({ url: '/v1/admin/organizations', headers: bearer(tokens.access_token) }),
      403,
      'forbidden',
    );
  });
});

describe('OAuth client authentication and foreign tokens', () => {
  const t = useApp();
  let org: Org;
  before(async () => {
    org = await verifiedOrganization(t);
  });

  it('refuses a wrong client secret, a missing one, and a method the client did not register (401 invalid_client)', async () => {
    const client = await register(t, {
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['authorization_code', 'refresh_token'],
    });
    const secret = client.client_secret as string;
    const { code, verifier } = await codeFor(t, org.headers, client.client_id);
    const fields = { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT };
    const wrong = await postForm(t, '/oauth/token', fields, basic(client.client_id, `${secret}x`));
    expectOAuthError(wrong, 401, 'invalid_client');
    assert.match(String(wrong.headers['www-authenticate']), /^Basic/);
    expectOAuthError(
      await postForm(t, '/oauth/token', { ...fields, client_id: client.client_id }),
      401,
      'invalid_client',
    );
    expectOAuthError(
      await postForm(t, '/oauth/token', { ...fields, client_id: client.client_id, client_secret: secret }),
      401,
      'invalid_client',
    );
    expectOAuthError(
      await postForm(t, '/oauth/token', { ...fields, client_secret: secret }, basic(client.client_id, secret)),
      400,
      'invalid_request',
    );
    expectOAuthError(await postForm(t, '/oauth/token', fields, { authorization: 'Basic !!!' }), 401, 'invalid_client');
    expectOAuthError(await postForm(t, '/oauth/token', fields), 401, 'invalid_client');
    // None of the failures spent the code.
    assert.equal((await postForm(t, '/oauth/token', fields, basic(client.client_id, secret))).statusCode, 200);
  });

  it('refuses a secret from a public client', async () => {
    const client = await registerPublic(t);
    const { code, verifier } = await codeFor(t, org.headers, client.client_id);
    expectOAuthError(
      await postForm(t, '/oauth/token', {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        client_id: client.client_id,
        client_secret: 'cg_cs_guess',
      }),
      401,
      'invalid_client',
    );
  });

  it("refuses another client's code", async () => {
    const owner = await registerPublic(t);
    const thief = await registerPublic(t);
    const { code, verifier } = await codeFor(t, org.headers, owner.client_id);
    expectOAuthError(
      await postForm(t, '/oauth/token', {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        client_id: thief.client_id,
      }),
      400,
      'invalid_grant',
    );
  });

  it("answers inactive for a foreign client's token at introspection, and leaves it alone at revocation", async () => {
    const owner = await registerPublic(t);
    const other = await register(t, {
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'client_secret_post',
      grant_types: ['authorization_code', 'refresh_token'],
    });
    const tokens = await tokensFor(t, org.headers, owner.client_id);
    const auth = { client_id: other.client_id, client_secret: other.client_secret as string };
    for (const token of [tokens.access_token, tokens.refresh_token as string]) {
      const introspected = await postForm(t, '/oauth/introspect', { token, ...auth });
      assert.deepEqual(introspected.json(), { active: false });
      const revoked = await postForm(t, '/oauth/revoke', { token, ...auth });
      assert.equal(revoked.statusCode, 200);
    }
    assert.equal((await whoami(t, tokens.access_token)).statusCode, 200, 'the foreign revocation had no effect');
    assert.equal(
      (await postForm(t, '/oauth/introspect', { token: tokens.access_token, client_id: owner.client_id })).json()
        .active,
      true,
    );
    expectOAuthError(
      await postForm(t, '/oauth/introspect', {
        token: tokens.access_token,
        client_id: other.client_id,
        client_secret: 'wrong',
      }),
      401,
      'invalid_client',
    );
  });
});

describe('OAuth consent by the right organization', () => {
  const t = useApp();
  let orgA: Org;
  let orgB: Org;
  let clientId: string;
  const newRequest = () => newRequestId(t, clientId);
  before(async () => {
    orgA = await verifiedOrganization(t);
    orgB = await verifiedOrganization(t);
    clientId = (await registerPublic(t)).client_id;
  });

  it('hides a request decided by one organization from another (404)', async () => {
    const requestId = await newRequest();
    await consent(t, orgA.headers, requestId);
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/oauth/consent',
        headers: orgB.headers,
        payload: { request_id: requestId, approve: true },
      }),
      404,
      'not_found',
    );
    expectProblem(
      await t.app.inject({ url: `/v1/oauth/requests/${requestId}`, headers: orgB.headers }),
      404,
      'not_found',
    );
  });

  it('gives a request to the first organization that reads it', async () => {
    const requestId = await newRequest();
    assert.equal(
      (await t.app.inject({ url: `/v1/oauth/requests/${requestId}`, headers: orgA.headers })).statusCode,
      200,
    );
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/oauth/consent',
        headers: orgB.headers,
        payload: { request_id: requestId, approve: true },
      }),
      404,
      'not_found',
    );
    await consent(t, orgA.headers, requestId);
  });

  it("lets no organization revoke another's grant", async () => {
    await tokensFor(t, orgA.headers, clientId);
    const grant = (await t.app.inject({ url: '/v1/oauth/grants', headers: orgA.headers })).json().grants[0];
    expectProblem(
      await t.app.inject({ method: 'DELETE', url: `/v1/oauth/grants/${grant.id}`, headers: orgB.headers }),
      404,
      'not_found',
    );
    assert.equal((await t.app.inject({ url: '/v1/oauth/grants', headers: orgB.headers })).json().grants.length, 0);
  });

  it('refuses consent from an unverified organization', async () => {
    const { signUp } = await import('../../../test/harness.ts');
    const unverified = await signUp(t);
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/oauth/consent',
        headers: bearer(unverified.apiKey),
        payload: { request_id: await newRequest(), approve: true },
      }),
      403,
      'organization_unverified',
    );
  });
});

describe('OAuth open redirect attempts', () => {
  const t = useApp();
  let org: Org;
  let clientId: string;
  let loopbackId: string;
  before(async () => {
    org = await verifiedOrganization(t);
    clientId = (await registerPublic(t)).client_id;
    loopbackId = (await registerPublic(t, { redirect_uris: ['http://127.0.0.1/callback'] })).client_id;
  });

  const tricks: [string, string][] = [
    ['a dot segment', 'https://app.example.com/callback/../evil'],
    ['an encoded dot segment', 'https://app.example.com/callback/%2e%2e/evil'],
    ['a longer host', 'https://app.example.com.evil.example/callback'],
    ['userinfo', 'https://app.example.com@evil.example/callback'],
    ['a fragment', 'https://app.example.com/callback#@evil.example'],
    ['an added query', 'https://app.example.com/callback?next=https://evil.example'],
    ['a trailing slash', 'https://app.example.com/callback/'],
    ['another scheme', 'http://app.example.com/callback'],
  ];
  for (const [name, uri] of tricks) {
    it(`never redirects to a redirect_uri with ${name}`, async () => {
      const response = await authorize(t, { response_type: 'token', client_id: clientId, redirect_uri: uri });
      assert.equal(response.statusCode, 400);
      assert.equal(response.headers.location, undefined);
    });
  }

  for (const [name, uri] of [
    ['another loopback host', 'http://localhost:5000/callback'],
    ['another path on a loopback port', 'http://127.0.0.1:5000/callback/../x'],
    ['a host spoofing loopback', 'http://127.0.0.1.evil.example:5000/callback'],
    ['loopback userinfo', 'http://127.0.0.1:5000@evil.example/callback'],
  ]) {
    it(`does not stretch the loopback port rule to ${name}`, async () => {
      const response = await authorize(t, {
        response_type: 'code',
        client_id: loopbackId,
        redirect_uri: uri,
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      });
      assert.equal(response.statusCode, 400);
      assert.equal(response.headers.location, undefined);
    });
  }

  it('carries a hostile state back encoded, as one parameter', async () => {
    const state = '&code=forged&redirect_uri=https://evil.example/#x';
    const response = await authorize(t, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      state,
    });
    const redirect = await consent(t, org.headers, requestIdOf(response));
    assert.equal(`${redirect.origin}${redirect.pathname}`, REDIRECT);
    assert.equal(redirect.searchParams.get('state'), state);
    assert.equal(redirect.searchParams.getAll('code').length, 1);
    assert.notEqual(redirect.searchParams.get('code'), 'forged');
    assert.equal(redirect.hash, '');
  });
});

describe('OAuth Client ID Metadata Documents that are not acceptable', () => {
  const documents = new Map<string, object>();
  const addresses: Record<string, string> = { 'private.example.com': '10.0.0.7', 'loopback.example.com': '127.0.0.1' };
  let fetches = 0;
  const t = useApp({
    deps: {
      oauth: {
        lookup: async (host) => [{ address: addresses[host] ?? '93.184.216.34', family: 4 }],
        fetchDocument: async (url): Promise<FetchedDocument> => {
          fetches += 1;
          const document = documents.get(url.toString());
          return document
            ? { status: 200, contentType: 'application/json', body: JSON.stringify(document) }
            : { status: 404, contentType: 'text/plain', body: 'not found' };
        },
      },
    },
  });
  before(async () => {
    const good = (url: string, extra: object = {}) =>
      documents.set(url, { client_id: url, client_name: 'Doc', redirect_uris: [REDIRECT], ...extra });
    good('https://private.example.com/client.json');
    good('https://loopback.example.com/client.json');
    good('https://other.example.com/client.json', { redirect_uris: ['https://other.example.com/cb'] });
    documents.set('https://liar.example.com/client.json', {
      client_id: 'https://someone-else.example.com/client.json',
      redirect_uris: [REDIRECT],
    });
    good('https://secretive.example.com/client.json', { token_endpoint_auth_method: 'client_secret_basic' });
  });

  const cases: [string, string][] = [
    ['an http URL', 'http://client.example.com/client.json'],
    ['a URL without a path', 'https://client.example.com/'],
    ['a host resolving to a private address', 'https://private.example.com/client.json'],
    ['a host resolving to loopback', 'https://loopback.example.com/client.json'],
    ['an IP literal in a private range', 'https://192.168.1.10/client.json'],
    ['a document that does not list the redirect URI', 'https://other.example.com/client.json'],
    ['a document naming another client_id', 'https://liar.example.com/client.json'],
    ['a document of a confidential client', 'https://secretive.example.com/client.json'],
    ['a document that is not there', 'https://missing.example.com/client.json'],
  ];
  for (const [name, clientId] of cases) {
    it(`shows an error page for ${name}`, async () => {
      const response = await authorize(t, {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      });
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(response.headers.location, undefined);
    });
  }

  it('fetches nothing from a private or http address', () => {
    // Only the public hosts were fetched: other, liar, secretive and missing.
    assert.equal(fetches, 4);
  });
});
