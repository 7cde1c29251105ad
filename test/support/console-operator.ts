// What the operator console's tests share: signing in with an admin token through the form, and
// page fetches and form posts with the operator session.
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, type TestApp } from '../harness.ts';
import { csrfOf, postForm, setCookies } from './console.ts';

export interface OperatorSignIn {
  cookie: string;
  csrf: string;
  headers: Record<string, string>;
}

/** Signs in with an admin token (the harness's bootstrap token unless given); the cookie and CSRF token. */
export async function signInOperator(t: TestApp, token = ADMIN_TOKEN): Promise<OperatorSignIn> {
  const signedIn = await postForm(t, '/console/operator/sign-in', { admin_token: token });
  assert.equal(signedIn.statusCode, 303, signedIn.body);
  assert.equal(signedIn.headers.location, '/console/operator/fleet');
  const value = setCookies(signedIn)[0]?.match(/^cg_operator=([^;]+)/)?.[1];
  assert.ok(value, 'an operator session cookie is set');
  const cookie = `cg_operator=${value}`;
  const page = await t.app.inject({ method: 'GET', url: '/console/operator/fleet', headers: { cookie } });
  assert.equal(page.statusCode, 200, page.body);
  return { cookie, csrf: csrfOf(page.body), headers: { cookie } };
}

export const getOperatorPage = (t: TestApp, url: string, signIn: OperatorSignIn) =>
  t.app.inject({ method: 'GET', url, headers: signIn.headers });

/** Posts an operator form with the session's CSRF token (unless `fields` gives another). */
export const postOperatorForm = (
  t: TestApp,
  url: string,
  signIn: OperatorSignIn,
  fields: Record<string, string> = {},
  headers: Record<string, string> = {},
) => postForm(t, url, { csrf_token: signIn.csrf, ...fields }, { ...signIn.headers, ...headers });

/** A page's text without tags (for asserting what a reader sees). */
export const textOf = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)))
    .replace(/\s+/g, ' ');
