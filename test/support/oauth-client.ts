// What the OAuth tests share: a client driving the flow through app.inject, as a real one would.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { TestApp } from '../harness.ts';
import { form, postForm } from './console.ts';

// The form posts of the console's tests: OAuth's authorize and token endpoints take the same.
export { form, postForm };

export const BASE = 'http://cellgate.test';
export const REDIRECT = 'https://app.example.com/callback';

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export const basic = (id: string, secret: string) => ({
  authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
});

export async function register(t: TestApp, metadata: Record<string, unknown>) {
  const response = await t.app.inject({ method: 'POST', url: '/oauth/register', payload: metadata });
  assert.equal(response.statusCode, 201, response.body);
  return response.json() as { client_id: string; client_secret?: string; [key: string]: unknown };
}

export const registerPublic = (t: TestApp, extra: Record<string, unknown> = {}) =>
  register(t, {
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    client_name: 'Test MCP client',
    ...extra,
  });

export function authorizeUrl(params: Record<string, string>) {
  return `/oauth/authorize?${new URLSearchParams(params).toString()}`;
}

export const authorize = (t: TestApp, params: Record<string, string>) =>
  t.app.inject({ method: 'GET', url: authorizeUrl(params) });

/** A fresh authorization request of a public client (PKCE, the registered redirect URI): its id. */
export const newRequestId = async (t: TestApp, clientId: string) =>
  requestIdOf(
    await authorize(t, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    }),
  );

/** The authorization request's id from the 303 to the console's consent page. */
export function requestIdOf(response: { statusCode: number; headers: Record<string, unknown>; body: string }): string {
  assert.equal(response.statusCode, 303, response.body);
  const location = new URL(String(response.headers.location));
  assert.equal(`${location.origin}${location.pathname}`, `${BASE}/console/consent`);
  const id = location.searchParams.get('request');
  assert.ok(id);
  return id;
}

export async function consent(t: TestApp, headers: Record<string, string>, requestId: string, approve = true) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/v1/oauth/consent',
    headers,
    payload: { request_id: requestId, approve },
  });
  assert.equal(response.statusCode, 200, response.body);
  return new URL(response.json().redirect_url as string);
}

/** Authorize and consent: the code, with the verifier it needs. */
export async function codeFor(
  t: TestApp,
  headers: Record<string, string>,
  clientId: string,
  extra: Record<string, string> = {},
) {
  const { verifier, challenge } = pkce();
  const requestId = requestIdOf(
    await authorize(t, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'st-123',
      ...extra,
    }),
  );
  const redirect = await consent(t, headers, requestId);
  const code = redirect.searchParams.get('code');
  assert.ok(code, redirect.toString());
  return { code, verifier, redirect, requestId };
}

/** The whole flow for a public client: its token response. */
export async function tokensFor(
  t: TestApp,
  headers: Record<string, string>,
  clientId: string,
  extra: Record<string, string> = {},
) {
  const { code, verifier } = await codeFor(t, headers, clientId, extra);
  const response = await postForm(t, '/oauth/token', {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT,
    client_id: clientId,
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json() as {
    access_token: string;
    refresh_token?: string;
    scope: string;
    expires_in: number;
    token_type: string;
  };
}

/** Asserts an RFC 6749 §5.2 error answer. */
export function expectOAuthError(
  response: {
    statusCode: number;
    headers: Record<string, unknown>;
    body: string;
    json(): { error: string; error_description: string };
  },
  status: number,
  error: string,
) {
  assert.equal(response.statusCode, status, response.body);
  assert.match(String(response.headers['content-type']), /^application\/json/);
  assert.equal(response.json().error, error, response.body);
  assert.equal(typeof response.json().error_description, 'string');
  assert.equal(response.headers['cache-control'], 'no-store');
  return response.json();
}
