import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, useApp, verifiedOrganization } from '../../../test/harness.ts';
import {
  BASE,
  REDIRECT,
  authorize,
  codeFor,
  consent,
  expectOAuthError,
  pkce,
  postForm,
  newRequestId,
  registerPublic,
  tokensFor,
} from '../../../test/support/oauth-client.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

describe('OAuth client registration with bad metadata', () => {
  const t = useApp();

  const cases: [string, unknown, string][] = [
    ['no redirect_uris', { client_name: 'x' }, 'invalid_redirect_uri'],
    ['an empty redirect_uris', { redirect_uris: [] }, 'invalid_redirect_uri'],
    ['an http redirect URI on a public host', { redirect_uris: ['http://app.example.com/cb'] }, 'invalid_redirect_uri'],
    ['a redirect URI with a fragment', { redirect_uris: ['https://app.example.com/cb#x'] }, 'invalid_redirect_uri'],
    ['a relative redirect URI', { redirect_uris: ['/cb'] }, 'invalid_redirect_uri'],
    ['a javascript: redirect URI', { redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
    [
      'a redirect URI carrying a code parameter',
      { redirect_uris: ['https://app.example.com/cb?code=1'] },
      'invalid_redirect_uri',
    ],
    [
      'a redirect URI with credentials',
      { redirect_uris: ['https://user:pw@app.example.com/cb'] },
      'invalid_redirect_uri',
    ],
    [
      'an unknown auth method',
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'private_key_jwt' },
      'invalid_client_metadata',
    ],
    ['the implicit grant', { redirect_uris: [REDIRECT], grant_types: ['implicit'] }, 'invalid_client_metadata'],
    [
      'the password grant',
      { redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'password'] },
      'invalid_client_metadata',
    ],
    ['response type token', { redirect_uris: [REDIRECT], response_types: ['token'] }, 'invalid_client_metadata'],
    ['an unknown scope', { redirect_uris: [REDIRECT], scope: 'cells:read admin' }, 'invalid_client_metadata'],
    [
      'a client_name over 100 characters',
      { redirect_uris: [REDIRECT], client_name: 'n'.repeat(101) },
      'invalid_client_metadata',
    ],
    ['a body that is not an object', ['x'], 'invalid_client_metadata'],
  ];
  for (const [name, payload, error] of cases) {
    it(`refuses ${name} (${error})`, async () => {
      expectOAuthError(
        await t.app.inject({ method: 'POST', url: '/oauth/register', payload: payload as Record<string, unknown> }),
        400,
        error,
      );
    });
  }

  it('answers malformed JSON with invalid_client_metadata, not problem+json', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/oauth/register',
      headers: { 'content-type': 'application/json' },
      payload: '{"redirect_uris": [',
    });
    expectOAuthError(response, 400, 'invalid_client_metadata');
  });
});

describe('OAuth authorization requests with bad input', () => {
  let clientId: string;
  const { challenge } = pkce();
  const good = () => ({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st',
  });
  const t = useApp();
  before(async () => {
    clientId = (await registerPublic(t)).client_id;
  });

  const expectPage = (response: { statusCode: number; headers: Record<string, unknown>; body: string }) => {
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(response.headers.location, undefined, 'never a redirect');
    assert.match(String(response.headers['content-type']), /^text\/html/);
    assert.match(response.body, /cannot be completed/);
  };

  it('shows an error page for an unknown client', async () =>
    expectPage(await authorize(t, { ...good(), client_id: 'ocl_unknown' })));
  it('shows an error page without a client_id', async () => {
    const { client_id: _omitted, ...rest } = good();
    expectPage(await authorize(t, rest));
  });
  it('shows an error page without a redirect_uri', async () => {
    const { redirect_uri: _omitted, ...rest } = good();
    expectPage(await authorize(t, rest));
  });
  for (const uri of [
    'https://evil.example.com/callback',
    'https://app.example.com/callback/other',
    'https://app.example.com/callback?x=1',
    'https://app.example.com/Callback',
    'http://app.example.com/callback',
  ]) {
    it(`shows an error page for the unregistered redirect URI ${uri}`, async () =>
      expectPage(await authorize(t, { ...good(), redirect_uri: uri })));
  }
  it('shows an error page, not a redirect, even when other parameters are wrong too', async () => {
    expectPage(
      await authorize(t, { client_id: clientId, redirect_uri: 'https://evil.example.com/cb', response_type: 'token' }),
    );
  });

  const redirected: [string, Record<string, string | undefined>, string][] = [
    ['a missing code_challenge', { code_challenge: undefined }, 'invalid_request'],
    [
      'code_challenge_method plain',
      { code_challenge_method: 'plain', code_challenge: 'a'.repeat(43) },
      'invalid_request',
    ],
    ['a missing code_challenge_method', { code_challenge_method: undefined }, 'invalid_request'],
    ['a code_challenge of 42 characters', { code_challenge: 'a'.repeat(42) }, 'invalid_request'],
    ['a code_challenge of 129 characters', { code_challenge: 'a'.repeat(129) }, 'invalid_request'],
    ['a code_challenge with other characters', { code_challenge: `${'a'.repeat(42)}+` }, 'invalid_request'],
    ['response_type token', { response_type: 'token' }, 'unsupported_response_type'],
    ['a missing response_type', { response_type: undefined }, 'invalid_request'],
    ['an unknown scope', { scope: 'cells:read admin:all' }, 'invalid_scope'],
    ['another resource', { resource: 'https://evil.example.com/v1' }, 'invalid_target'],
  ];
  for (const [name, change, error] of redirected) {
    it(`redirects ${name} back as ${error}, with state and iss`, async () => {
      const params = { ...good(), ...change };
      const response = await authorize(
        t,
        Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)) as Record<string, string>,
      );
      assert.equal(response.statusCode, 303, response.body);
      const location = new URL(String(response.headers.location));
      assert.equal(`${location.origin}${location.pathname}`, REDIRECT);
      assert.equal(location.searchParams.get('error'), error);
      assert.equal(location.searchParams.get('state'), 'st');
      assert.equal(location.searchParams.get('iss'), BASE);
    });
  }

  it('redirects a repeated parameter back as invalid_request', async () => {
    const response = await t.app.inject({
      url: `/oauth/authorize?${new URLSearchParams(good())}&scope=cells:read&scope=cells:write`,
    });
    assert.equal(new URL(String(response.headers.location)).searchParams.get('error'), 'invalid_request');
  });
});

describe('OAuth token requests with bad input', () => {
  let org: Org;
  let clientId: string;
  const t = useApp();
  before(async () => {
    org = await verifiedOrganization(t);
    clientId = (await registerPublic(t)).client_id;
  });

  const exchange = (fields: Record<string, string>) =>
    postForm(t, '/oauth/token', {
      grant_type: 'authorization_code',
      redirect_uri: REDIRECT,
      client_id: clientId,
      ...fields,
    });

  it('refuses a wrong code_verifier (invalid_grant), and the code is spent', async () => {
    const { code, verifier } = await codeFor(t, org.headers, clientId);
    expectOAuthError(await exchange({ code, code_verifier: pkce().verifier }), 400, 'invalid_grant');
    expectOAuthError(await exchange({ code, code_verifier: verifier }), 400, 'invalid_grant');
  });

  it('refuses a code_verifier of the wrong length (invalid_request)', async () => {
    const { code } = await codeFor(t, org.headers, clientId);
    expectOAuthError(await exchange({ code, code_verifier: 'a'.repeat(42) }), 400, 'invalid_request');
    expectOAuthError(await exchange({ code }), 400, 'invalid_request');
  });

  it('refuses an expired code (60 s)', async () => {
    const { code, verifier } = await codeFor(t, org.headers, clientId);
    t.clock.advance(61_000);
    expectOAuthError(await exchange({ code, code_verifier: verifier }), 400, 'invalid_grant');
  });

  it('refuses another redirect_uri than the authorization request had', async () => {
    const { code, verifier } = await codeFor(t, org.headers, clientId);
    expectOAuthError(
      await exchange({ code, code_verifier: verifier, redirect_uri: 'https://app.example.com/other' }),
      400,
      'invalid_grant',
    );
  });

  it('refuses another resource than the authorization request had (invalid_target)', async () => {
    const { code, verifier } = await codeFor(t, org.headers, clientId);
    expectOAuthError(await exchange({ code, code_verifier: verifier, resource: `${BASE}/mcp` }), 400, 'invalid_target');
  });

  it('refuses an unknown code', async () => {
    expectOAuthError(await exchange({ code: 'cg_ac_nothing', code_verifier: pkce().verifier }), 400, 'invalid_grant');
  });

  it('refuses a missing or unsupported grant_type, and the password grant', async () => {
    expectOAuthError(await postForm(t, '/oauth/token', { client_id: clientId }), 400, 'invalid_request');
    expectOAuthError(
      await postForm(t, '/oauth/token', { grant_type: 'password', username: 'a', password: 'b', client_id: clientId }),
      400,
      'unsupported_grant_type',
    );
    expectOAuthError(
      await postForm(t, '/oauth/token', { grant_type: 'client_credentials', client_id: clientId }),
      400,
      'unsupported_grant_type',
    );
  });

  it('refuses a JSON body and a repeated parameter (invalid_request)', async () => {
    expectOAuthError(
      await t.app.inject({ method: 'POST', url: '/oauth/token', payload: { grant_type: 'authorization_code' } }),
      400,
      'invalid_request',
    );
    const repeated = await t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `grant_type=refresh_token&client_id=${clientId}&refresh_token=a&refresh_token=b`,
    });
    expectOAuthError(repeated, 400, 'invalid_request');
  });

  it('refuses a refresh with a scope that was not granted (invalid_scope)', async () => {
    const tokens = await tokensFor(t, org.headers, clientId, { scope: 'cells:read' });
    expectOAuthError(
      await postForm(t, '/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token as string,
        client_id: clientId,
        scope: 'cells:read cells:write',
      }),
      400,
      'invalid_scope',
    );
  });

  it('requires the token to introspect or revoke', async () => {
    expectOAuthError(await postForm(t, '/oauth/introspect', { client_id: clientId }), 400, 'invalid_request');
    expectOAuthError(await postForm(t, '/oauth/revoke', { client_id: clientId }), 400, 'invalid_request');
  });
});

describe('OAuth consent with bad input', () => {
  let org: Org;
  let clientId: string;
  const newRequest = () => newRequestId(t, clientId);
  const t = useApp();
  before(async () => {
    org = await verifiedOrganization(t);
    clientId = (await registerPublic(t)).client_id;
  });

  it('refuses a second decision (409 conflict)', async () => {
    const requestId = await newRequest();
    await consent(t, org.headers, requestId);
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/oauth/consent',
        headers: org.headers,
        payload: { request_id: requestId, approve: true },
      }),
      409,
      'conflict',
    );
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/oauth/consent',
        headers: org.headers,
        payload: { request_id: requestId, approve: false },
      }),
      409,
      'conflict',
    );
  });

  it('refuses an expired request (409 conflict)', async () => {
    const requestId = await newRequest();
    t.clock.advance(11 * 60 * 1000);
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/oauth/consent',
        headers: org.headers,
        payload: { request_id: requestId, approve: true },
      }),
      409,
      'conflict',
    );
  });

  it('answers 404 for an unknown request and 400 for a bad body', async () => {
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/oauth/consent',
        headers: org.headers,
        payload: { request_id: 'oar_nope', approve: true },
      }),
      404,
      'not_found',
    );
    expectProblem(await t.app.inject({ url: '/v1/oauth/requests/oar_nope', headers: org.headers }), 404, 'not_found');
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/oauth/consent',
        headers: org.headers,
        payload: { request_id: 'oar_x' },
      }),
      400,
      'invalid_request',
    );
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/oauth/consent',
        headers: org.headers,
        payload: { request_id: 'oar_x', approve: 'yes' },
      }),
      400,
      'invalid_request',
    );
    expectProblem(
      await t.app.inject({ method: 'DELETE', url: '/v1/oauth/grants/grt_nope', headers: org.headers }),
      404,
      'not_found',
    );
  });
});
