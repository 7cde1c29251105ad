// What the console tests share: signing in through the pages, and an OAuth client driving the
// authorization code flow with PKCE through app.inject.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { TestApp } from '../harness.ts';

export const REDIRECT = 'https://app.example.com/callback';

export const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

export const postForm = (
  t: TestApp,
  url: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) =>
  t.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: form(fields),
  });

export function setCookies(response: { headers: Record<string, unknown> }): string[] {
  const header = response.headers['set-cookie'];
  return header === undefined ? [] : [header].flat().map(String);
}

/** The CSRF token of the session, from a hidden field of the page. */
export function csrfOf(html: string): string {
  const token = html.match(/name="csrf_token" value="([^"]+)"/)?.[1];
  assert.ok(token, 'the page carries a CSRF token');
  return token;
}

export interface ConsoleSignIn {
  cookie: string;
  csrf: string;
  headers: Record<string, string>;
}

/** Signs in through the pages with the mailed code; the session cookie and its CSRF token. */
export async function signInConsole(t: TestApp, email: string): Promise<ConsoleSignIn> {
  const asked = await postForm(t, '/console/sign-in', { email });
  assert.equal(asked.statusCode, 200, asked.body);
  const verified = await postForm(t, '/console/sign-in/code', { email, code: t.mail.codeFor(email) });
  assert.equal(verified.statusCode, 303, verified.body);
  const value = setCookies(verified)[0]?.match(/^cg_console=([^;]+)/)?.[1];
  assert.ok(value, 'a session cookie is set');
  const cookie = `cg_console=${value}`;
  const page = await t.app.inject({ method: 'GET', url: '/console/grants', headers: { cookie } });
  assert.equal(page.statusCode, 200, page.body);
  return { cookie, csrf: csrfOf(page.body), headers: { cookie } };
}

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export async function registerClient(t: TestApp, extra: Record<string, unknown> = {}): Promise<string> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/oauth/register',
    payload: {
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      client_name: 'Acme Assistant',
      ...extra,
    },
  });
  assert.equal(response.statusCode, 201, response.body);
  return (response.json() as { client_id: string }).client_id;
}

/** Starts an authorization request; its id (from the 303 to the consent page) and PKCE verifier. */
export async function startAuthorization(t: TestApp, clientId: string, extra: Record<string, string> = {}) {
  const { verifier, challenge } = pkce();
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-console',
    scope: 'cells:read messages:send',
    ...extra,
  });
  const response = await t.app.inject({ method: 'GET', url: `/oauth/authorize?${query.toString()}` });
  assert.equal(response.statusCode, 303, response.body);
  const location = new URL(String(response.headers.location));
  assert.equal(location.pathname, '/console/consent');
  const requestId = location.searchParams.get('request');
  assert.ok(requestId);
  return { requestId, verifier, consentPath: `${location.pathname}${location.search}` };
}

export async function exchangeCode(t: TestApp, clientId: string, code: string, verifier: string) {
  const response = await postForm(t, '/oauth/token', {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT,
    client_id: clientId,
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json() as { access_token: string; refresh_token?: string; scope: string };
}
