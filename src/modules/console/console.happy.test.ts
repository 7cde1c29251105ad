import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, useApp, verifiedOrganization } from '../../../test/harness.ts';
import {
  csrfOf,
  exchangeCode,
  postForm,
  registerClient,
  REDIRECT,
  setCookies,
  signInConsole,
  startAuthorization,
} from '../../../test/support/console.ts';
import { page as read } from '../../../test/support/page.ts';

describe('console', () => {
  const t = useApp();

  it('serves an accessible sign-in page and its stylesheet', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/console/sign-in' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
    const signIn = read(page);
    assert.equal(signIn.document.documentElement.lang, 'en');
    assert.equal(signIn.document.title, 'Sign in — Cellgate Console');
    const email = signIn.getByLabelText<HTMLInputElement>('Email address');
    assert.deepEqual([email.name, email.type], ['email', 'email']);
    const css = await t.app.inject({ method: 'GET', url: '/console/console.css' });
    assert.equal(css.statusCode, 200);
    assert.match(String(css.headers['content-type']), /^text\/css/);
    assert.match(css.body, /:focus-visible/);
  });

  it('mails a 6-digit code to the organization and signs in with it', async () => {
    const org = await verifiedOrganization(t);
    const asked = await postForm(t, '/console/sign-in', { email: org.email.toUpperCase() });
    assert.equal(asked.statusCode, 200);
    read(asked).getByText(/Check your email/);
    const mail = t.mail.sent.at(-1);
    assert.equal(mail?.to, org.email);
    assert.match(String(mail?.subject), /sign-in code: \d{6}$/);
    const verified = await postForm(t, '/console/sign-in/code', { email: org.email, code: t.mail.codeFor(org.email) });
    assert.equal(verified.statusCode, 303);
    assert.equal(verified.headers.location, '/console/cells');
    const cookies = setCookies(verified);
    assert.equal(cookies.length, 2);
    const page = await t.app.inject({
      method: 'GET',
      url: '/console/grants',
      headers: { cookie: cookies[0].split(';')[0] },
    });
    assert.equal(page.statusCode, 200);
    const grants = read(page);
    grants.getByRole('heading', { level: 1, name: 'Connected applications' });
    grants.getByText(/No application has access/);
  });

  it('sends a signed-out visitor of the consent page to sign in, then back to it', async () => {
    const org = await verifiedOrganization(t);
    const { consentPath } = await startAuthorization(t, await registerClient(t));
    const visit = await t.app.inject({ method: 'GET', url: consentPath });
    assert.equal(visit.statusCode, 303);
    const signIn = new URL(String(visit.headers.location), 'http://x');
    assert.equal(signIn.pathname, '/console/sign-in');
    assert.equal(signIn.searchParams.get('next'), consentPath);
    const form = await t.app.inject({ method: 'GET', url: String(visit.headers.location) });
    assert.equal(read(form).hidden('next'), consentPath);
    await postForm(t, '/console/sign-in', { email: org.email, next: consentPath });
    const verified = await postForm(t, '/console/sign-in/code', {
      email: org.email,
      code: t.mail.codeFor(org.email),
      next: consentPath,
    });
    assert.equal(verified.statusCode, 303);
    assert.equal(verified.headers.location, consentPath);
  });

  it('shows the consent, approves it from the form and the client gets a working token', async () => {
    const org = await verifiedOrganization(t);
    const session = await signInConsole(t, org.email);
    const clientId = await registerClient(t);
    const { requestId, verifier, consentPath } = await startAuthorization(t, clientId);

    const page = await t.app.inject({ method: 'GET', url: consentPath, headers: session.headers });
    assert.equal(page.statusCode, 200, page.body);
    const consent = read(page);
    consent.getByRole('heading', { level: 1, name: /^Allow Acme Assistant to access / });
    assert.match(
      consent.getByText(/^After you decide, you will be sent back to/).textContent ?? '',
      /app\.example\.com\.$/,
    );
    const asks = consent.getByRole('list', { name: 'It asks to' });
    assert.deepEqual(
      consent
        .within(asks)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
      ['See your cells (phone lines) and their status cells:read', 'Send text messages from your cells messages:send'],
    );
    assert.equal(consent.definition('Access to'), 'the Cellgate REST API http://cellgate.test/v1');
    const approve = consent.getByRole<HTMLButtonElement>('button', { name: 'Approve' });
    assert.equal(approve.form?.getAttribute('action'), '/v1/oauth/consent/session');
    assert.doesNotMatch(String(page.headers['content-security-policy']), /form-action/);

    const decided = await postForm(
      t,
      '/v1/oauth/consent/session',
      { request_id: requestId, csrf_token: csrfOf(page.body), approve: 'true' },
      session.headers,
    );
    assert.equal(decided.statusCode, 303, decided.body);
    const back = new URL(String(decided.headers.location));
    assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
    assert.equal(back.searchParams.get('state'), 'st-console');
    assert.equal(back.searchParams.get('iss'), 'http://cellgate.test');
    const code = back.searchParams.get('code');
    assert.ok(code);

    const tokens = await exchangeCode(t, clientId, code, verifier);
    const who = await t.app.inject({ method: 'GET', url: '/v1/auth/whoami', headers: bearer(tokens.access_token) });
    assert.equal(who.statusCode, 200, who.body);
    assert.equal(who.json().credential_type, 'oauth_token');
    assert.equal(who.json().organization_id, org.organizationId);
    assert.deepEqual(who.json().scopes, ['cells:read', 'messages:send']);
  });

  it('answers the redirect URL as JSON, and a denial carries access_denied', async () => {
    const org = await verifiedOrganization(t);
    const session = await signInConsole(t, org.email);
    const clientId = await registerClient(t);
    const approved = await startAuthorization(t, clientId);
    const json = await t.app.inject({
      method: 'POST',
      url: '/v1/oauth/consent/session',
      headers: session.headers,
      payload: { request_id: approved.requestId, approve: true, csrf_token: session.csrf },
    });
    assert.equal(json.statusCode, 200, json.body);
    assert.ok(new URL(json.json().redirect_url).searchParams.get('code'));

    const denied = await startAuthorization(t, clientId);
    const form = await postForm(
      t,
      '/v1/oauth/consent/session',
      { request_id: denied.requestId, approve: 'false', csrf_token: session.csrf },
      session.headers,
    );
    assert.equal(form.statusCode, 303);
    const back = new URL(String(form.headers.location));
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(back.searchParams.get('code'), null);
    assert.equal(back.searchParams.get('iss'), 'http://cellgate.test');
  });

  it('lists a grant and revoking it from the page stops its token at once', async () => {
    const org = await verifiedOrganization(t);
    const session = await signInConsole(t, org.email);
    const clientId = await registerClient(t, { client_name: 'Revocable <App>' });
    const { requestId, verifier } = await startAuthorization(t, clientId);
    const decided = await t.app.inject({
      method: 'POST',
      url: '/v1/oauth/consent/session',
      headers: session.headers,
      payload: { request_id: requestId, approve: true, csrf_token: session.csrf },
    });
    const code = new URL(decided.json().redirect_url).searchParams.get('code') as string;
    const tokens = await exchangeCode(t, clientId, code, verifier);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/v1/auth/whoami', headers: bearer(tokens.access_token) })).statusCode,
      200,
    );

    const page = await t.app.inject({ method: 'GET', url: '/console/grants', headers: session.headers });
    assert.match(page.body, /<strong>Revocable &#60;App&#62;<\/strong>/, 'names are escaped');
    const revoke = read(page).getByRole<HTMLButtonElement>('button', { name: 'Revoke access of Revocable <App>' });
    const action = revoke.form?.getAttribute('action') ?? '';
    assert.match(action, /^\/console\/grants\/grt_\w+\/revoke$/);
    const revoked = await postForm(t, action, { csrf_token: session.csrf }, session.headers);
    assert.equal(revoked.statusCode, 303);
    assert.equal(revoked.headers.location, '/console/grants?revoked=1');
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/v1/auth/whoami', headers: bearer(tokens.access_token) })).statusCode,
      401,
    );
    const after = await t.app.inject({ method: 'GET', url: '/console/grants?revoked=1', headers: session.headers });
    const revokedPage = read(after);
    revokedPage.getByText(/Access revoked/);
    revokedPage.getByText(/No application has access/);
  });

  it('signs out: the cookies are cleared and the session is gone', async () => {
    const org = await verifiedOrganization(t);
    const session = await signInConsole(t, org.email);
    const out = await postForm(t, '/console/sign-out', { csrf_token: session.csrf }, session.headers);
    assert.equal(out.statusCode, 303);
    assert.equal(out.headers.location, '/console/sign-in');
    const cleared = setCookies(out);
    assert.equal(cleared.length, 2);
    for (const cookie of cleared) assert.match(cookie, /^cg_console=; Path=[^;]+; Max-Age=0; HttpOnly; SameSite=Lax$/);
    const again = await t.app.inject({ method: 'GET', url: '/console/grants', headers: session.headers });
    assert.equal(again.statusCode, 303);
    assert.equal(again.headers.location, '/console/sign-in?next=%2Fconsole%2Fgrants');
  });

  it('documents POST /v1/oauth/consent/session in the OpenAPI document', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operation = document.paths['/v1/oauth/consent/session'].post;
    assert.equal(operation.operationId, 'decideAuthorizationRequestWithConsoleSession');
    assert.deepEqual(operation.tags, ['OAuth']);
    assert.ok(operation.requestBody.content['application/x-www-form-urlencoded']);
    for (const status of ['200', '303', '401', '403', '404', '409']) assert.ok(operation.responses[status], status);
    assert.equal(document.paths['/console/sign-in'], undefined, 'console pages are not in the API document');
  });
});
