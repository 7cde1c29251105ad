import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  expectProblem,
  signUp,
  startApp,
  uniqueEmail,
  verifiedOrganization,
  type TestApp,
  useApp,
} from '../../../test/harness.ts';
import { REQUEST_TTL_MS } from '../oauth/service.ts';
import { CODE_ATTEMPTS, CODE_TTL_MS, SESSION_TTL_MS } from './service.ts';
import {
  exchangeCode,
  postForm,
  registerClient,
  setCookies,
  signInConsole,
  startAuthorization,
} from '../../../test/support/console.ts';

/** Mails one code to the organization's email; the code. */
async function askCode(t: TestApp, email: string): Promise<string> {
  const response = await postForm(t, '/console/sign-in', { email });
  assert.equal(response.statusCode, 200, response.body);
  return t.mail.codeFor(email);
}

const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
const enter = (t: TestApp, email: string, code: string) => postForm(t, '/console/sign-in/code', { email, code });

describe('console sign-in', () => {
  const t = useApp();

  it('refuses a wrong code with the error tied to the field, and still takes the right one', async () => {
    const org = await verifiedOrganization(t);
    const code = await askCode(t, org.email);
    const wrong = await enter(t, org.email, wrongCode(code));
    assert.equal(wrong.statusCode, 400);
    assert.equal(setCookies(wrong).length, 0);
    assert.match(wrong.body, /<title>Error: Enter your code — Cellgate Console<\/title>/);
    assert.match(
      wrong.body,
      /<input id="code" name="code" type="text" value="" required aria-describedby="code-hint code-error" aria-invalid="true"/,
    );
    assert.match(wrong.body, /<p class="field-error" id="code-error">That code is not valid/);
    assert.equal((await enter(t, org.email, code)).statusCode, 303);
  });

  it('refuses a code that is not 6 digits without spending an attempt', async () => {
    const org = await verifiedOrganization(t);
    const code = await askCode(t, org.email);
    for (let i = 0; i < CODE_ATTEMPTS + 1; i++) {
      const response = await enter(t, org.email, '12ab');
      assert.equal(response.statusCode, 400);
      assert.match(response.body, /Enter the 6 digits from the email/);
    }
    assert.equal((await enter(t, org.email, code)).statusCode, 303);
  });

  it('refuses an expired code', async () => {
    const org = await verifiedOrganization(t);
    const code = await askCode(t, org.email);
    t.clock.advance(CODE_TTL_MS);
    const response = await enter(t, org.email, code);
    assert.equal(response.statusCode, 400);
    assert.match(response.body, /That code is not valid/);
  });

  it('kills the code after five wrong attempts, until a new one is mailed', async () => {
    const org = await verifiedOrganization(t);
    const code = await askCode(t, org.email);
    for (let i = 0; i < CODE_ATTEMPTS; i++) assert.equal((await enter(t, org.email, wrongCode(code))).statusCode, 400);
    assert.equal((await enter(t, org.email, code)).statusCode, 400, 'the right code no longer works');
    const fresh = await askCode(t, org.email);
    assert.equal((await enter(t, org.email, fresh)).statusCode, 303);
  });

  it('uses a code once', async () => {
    const org = await verifiedOrganization(t);
    const code = await askCode(t, org.email);
    assert.equal((await enter(t, org.email, code)).statusCode, 303);
    assert.equal((await enter(t, org.email, code)).statusCode, 400);
  });

  it('answers an unknown or unverified email exactly like a known one; mails nothing to the unknown one', async () => {
    const known = await verifiedOrganization(t);
    const unverified = await signUp(t);
    const mailed = t.mail.sent.length;
    const unknownEmail = uniqueEmail();
    const pages = [];
    for (const email of [unknownEmail, unverified.email]) {
      const response = await postForm(t, '/console/sign-in', { email });
      assert.equal(response.statusCode, 200);
      pages.push(response.body.replaceAll(email, 'EMAIL'));
    }
    // An unverified organization is mailed a sign-in code: signing in finishes its verification.
    assert.deepEqual(
      t.mail.sent.slice(mailed).map((mail) => mail.to),
      [unverified.email],
      'no mail to an unknown email',
    );
    const knownPage = await postForm(t, '/console/sign-in', { email: known.email });
    assert.equal(pages[0], knownPage.body.replaceAll(known.email, 'EMAIL'));
    assert.equal(pages[1], pages[0]);
    const guess = await enter(t, unknownEmail, '123456');
    assert.equal(guess.statusCode, 400);
    assert.match(guess.body, /That code is not valid/);
  });

  it('rejects a malformed email with the error tied to the field', async () => {
    const response = await postForm(t, '/console/sign-in', { email: 'not-an-email' });
    assert.equal(response.statusCode, 400);
    assert.match(response.body, /aria-describedby="email-error" aria-invalid="true"/);
    assert.match(response.body, /id="email-error">Enter an email address/);
  });

  it('sets an HttpOnly, SameSite=Lax session cookie on the console and consent paths, not Secure over http', async () => {
    const org = await verifiedOrganization(t);
    const code = await askCode(t, org.email);
    const cookies = setCookies(await enter(t, org.email, code));
    const maxAge = SESSION_TTL_MS / 1000;
    assert.deepEqual(
      cookies.map((c) => c.replace(/^cg_console=cg_cs_[A-Za-z0-9]{32};/, 'cg_console=V;')),
      [
        `cg_console=V; Path=/console; Max-Age=${maxAge}; HttpOnly; SameSite=Lax`,
        `cg_console=V; Path=/v1/oauth/consent/session; Max-Age=${maxAge}; HttpOnly; SameSite=Lax`,
      ],
    );
  });

  it('marks the cookie Secure when the console is served over https', async () => {
    const secure = await startApp({ env: { CELLGATE_CONSOLE_URL: 'https://console.cellgate.test/console' } });
    try {
      const org = await verifiedOrganization(secure);
      const code = await askCode(secure, org.email);
      const cookies = setCookies(await enter(secure, org.email, code));
      assert.equal(cookies.length, 2);
      for (const cookie of cookies) assert.match(cookie, /; HttpOnly; SameSite=Lax; Secure$/);
    } finally {
      await secure.close();
    }
  });

  it('ends the session after 12 hours', async () => {
    const org = await verifiedOrganization(t);
    const session = await signInConsole(t, org.email);
    t.clock.advance(SESSION_TTL_MS);
    const page = await t.app.inject({ method: 'GET', url: '/console/grants', headers: session.headers });
    assert.equal(page.statusCode, 303);
  });

  it('ignores a session cookie it did not issue', async () => {
    const page = await t.app.inject({
      method: 'GET',
      url: '/console/grants',
      headers: { cookie: 'cg_console=cg_cs_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
    });
    assert.equal(page.statusCode, 303);
  });

  it('never redirects outside the console after sign-in', async () => {
    for (const next of [
      '//evil.example/console/x',
      'https://evil.example/console/',
      '/console/../v1/auth/keys',
      '/\\evil.example',
      '/consolex',
    ]) {
      const org = await verifiedOrganization(t);
      await postForm(t, '/console/sign-in', { email: org.email, next });
      const response = await postForm(t, '/console/sign-in/code', {
        email: org.email,
        code: t.mail.codeFor(org.email),
        next,
      });
      assert.equal(response.statusCode, 303);
      assert.equal(response.headers.location, '/console/cells', next);
    }
  });
});

describe('console forms and the session consent route', () => {
  const t = useApp();

  async function pending() {
    const org = await verifiedOrganization(t);
    const session = await signInConsole(t, org.email);
    const clientId = await registerClient(t);
    const authorization = await startAuthorization(t, clientId);
    return { org, session, clientId, ...authorization };
  }

  const decide = (headers: Record<string, string>, body: Record<string, unknown>, extra: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/oauth/consent/session',
      headers: { ...headers, ...extra },
      payload: body,
    });

  it('refuses a consent without a session cookie (401)', async () => {
    const { requestId, session } = await pending();
    expectProblem(
      await decide({}, { request_id: requestId, approve: true, csrf_token: session.csrf }),
      401,
      'unauthenticated',
    );
    expectProblem(
      await decide(
        { cookie: 'cg_console=cg_cs_nope' },
        { request_id: requestId, approve: true, csrf_token: session.csrf },
      ),
      401,
      'unauthenticated',
    );
  });

  it('refuses a consent with a missing or wrong CSRF token (403), as JSON and as a form', async () => {
    const { requestId, session } = await pending();
    expectProblem(await decide(session.headers, { request_id: requestId, approve: true }), 403, 'forbidden');
    expectProblem(
      await decide(session.headers, { request_id: requestId, approve: true, csrf_token: 'x'.repeat(32) }),
      403,
      'forbidden',
    );
    const form = await postForm(
      t,
      '/v1/oauth/consent/session',
      { request_id: requestId, approve: 'true' },
      session.headers,
    );
    assert.equal(form.statusCode, 403);
    assert.match(String(form.headers['content-type']), /^text\/html/);
    assert.match(form.body, /Request refused/);
    // Still pending: the right token decides it.
    assert.equal(
      (await decide(session.headers, { request_id: requestId, approve: true, csrf_token: session.csrf })).statusCode,
      200,
    );
  });

  it('refuses a consent posted from another origin (403)', async () => {
    const { requestId, session } = await pending();
    expectProblem(
      await decide(
        session.headers,
        { request_id: requestId, approve: true, csrf_token: session.csrf },
        { origin: 'https://evil.example' },
      ),
      403,
      'forbidden',
    );
    assert.equal(
      (
        await decide(
          session.headers,
          { request_id: requestId, approve: true, csrf_token: session.csrf },
          { origin: 'http://cellgate.test' },
        )
      ).statusCode,
      200,
    );
  });

  it('rejects a CSRF token of another session', async () => {
    const { requestId, session } = await pending();
    const other = await signInConsole(t, (await verifiedOrganization(t)).email);
    expectProblem(
      await decide(session.headers, { request_id: requestId, approve: true, csrf_token: other.csrf }),
      403,
      'forbidden',
    );
  });

  it("hides another organization's request (404) on the page and the route", async () => {
    const { requestId, consentPath, session } = await pending();
    assert.equal(
      (await t.app.inject({ method: 'GET', url: consentPath, headers: session.headers })).statusCode,
      200,
      'its organization holds it',
    );
    const other = await signInConsole(t, (await verifiedOrganization(t)).email);
    const page = await t.app.inject({ method: 'GET', url: consentPath, headers: other.headers });
    assert.equal(page.statusCode, 404);
    assert.match(page.body, /Authorization request not found/);
    expectProblem(
      await decide(other.headers, { request_id: requestId, approve: true, csrf_token: other.csrf }),
      404,
      'not_found',
    );
    expectProblem(
      await decide(other.headers, { request_id: 'oar_unknown', approve: true, csrf_token: other.csrf }),
      404,
      'not_found',
    );
  });

  it('decides a request once (409), and the page says it was decided', async () => {
    const { requestId, consentPath, session, clientId, verifier } = await pending();
    const first = await decide(session.headers, { request_id: requestId, approve: true, csrf_token: session.csrf });
    assert.equal(first.statusCode, 200);
    expectProblem(
      await decide(session.headers, { request_id: requestId, approve: true, csrf_token: session.csrf }),
      409,
      'conflict',
    );
    const form = await postForm(
      t,
      '/v1/oauth/consent/session',
      { request_id: requestId, approve: 'false', csrf_token: session.csrf },
      session.headers,
    );
    assert.equal(form.statusCode, 409);
    assert.match(form.body, /Already decided/);
    const page = await t.app.inject({ method: 'GET', url: consentPath, headers: session.headers });
    assert.equal(page.statusCode, 409);
    assert.match(page.body, /already approved/);
    // The first decision's code still works.
    const code = new URL(first.json().redirect_url).searchParams.get('code') as string;
    await exchangeCode(t, clientId, code, verifier);
  });

  it('tells an expired request on the page, and refuses to decide it (409)', async () => {
    const { requestId, consentPath, session } = await pending();
    t.clock.advance(REQUEST_TTL_MS);
    const page = await t.app.inject({ method: 'GET', url: consentPath, headers: session.headers });
    assert.equal(page.statusCode, 409);
    assert.match(page.body, /Authorization request expired/);
    expectProblem(
      await decide(session.headers, { request_id: requestId, approve: true, csrf_token: session.csrf }),
      409,
      'conflict',
    );
  });

  it('rejects a form approve that is not true or false (400)', async () => {
    const { requestId, session } = await pending();
    const response = await postForm(
      t,
      '/v1/oauth/consent/session',
      { request_id: requestId, approve: 'yes', csrf_token: session.csrf },
      session.headers,
    );
    expectProblem(response, 400, 'invalid_request');
  });

  it('refuses revoking a grant without the CSRF token (403) and keeps the grant', async () => {
    const { requestId, session, clientId, verifier } = await pending();
    const decided = await decide(session.headers, { request_id: requestId, approve: true, csrf_token: session.csrf });
    const tokens = await exchangeCode(
      t,
      clientId,
      new URL(decided.json().redirect_url).searchParams.get('code') as string,
      verifier,
    );
    const page = await t.app.inject({ method: 'GET', url: '/console/grants', headers: session.headers });
    const action = page.body.match(/action="(\/console\/grants\/grt_[^"]+\/revoke)"/)?.[1] as string;
    assert.equal((await postForm(t, action, {}, session.headers)).statusCode, 403);
    assert.equal((await postForm(t, action, { csrf_token: 'wrong' }, session.headers)).statusCode, 403);
    assert.equal((await postForm(t, action, { csrf_token: session.csrf }, session.headers)).statusCode, 303);
    assert.equal(
      (
        await t.app.inject({
          method: 'GET',
          url: '/v1/auth/whoami',
          headers: { authorization: `Bearer ${tokens.access_token}` },
        })
      ).statusCode,
      401,
    );
  });

  it("does not revoke another organization's grant (404)", async () => {
    const { requestId, session, clientId, verifier } = await pending();
    const decided = await decide(session.headers, { request_id: requestId, approve: true, csrf_token: session.csrf });
    const tokens = await exchangeCode(
      t,
      clientId,
      new URL(decided.json().redirect_url).searchParams.get('code') as string,
      verifier,
    );
    const page = await t.app.inject({ method: 'GET', url: '/console/grants', headers: session.headers });
    const action = page.body.match(/action="(\/console\/grants\/grt_[^"]+\/revoke)"/)?.[1] as string;
    const other = await signInConsole(t, (await verifiedOrganization(t)).email);
    const response = await postForm(t, action, { csrf_token: other.csrf }, other.headers);
    assert.equal(response.statusCode, 404);
    assert.equal(
      (
        await t.app.inject({
          method: 'GET',
          url: '/v1/auth/whoami',
          headers: { authorization: `Bearer ${tokens.access_token}` },
        })
      ).statusCode,
      200,
    );
  });

  it('refuses sign-out without the CSRF token (403) and keeps the session', async () => {
    const { session } = await pending();
    assert.equal((await postForm(t, '/console/sign-out', {}, session.headers)).statusCode, 403);
    assert.equal((await postForm(t, '/console/sign-out', { csrf_token: 'wrong' }, session.headers)).statusCode, 403);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/console/grants', headers: session.headers })).statusCode,
      200,
    );
  });

  it('refuses console forms posted from another origin (403)', async () => {
    const { session } = await pending();
    const response = await postForm(
      t,
      '/console/sign-out',
      { csrf_token: session.csrf },
      { ...session.headers, origin: 'https://evil.example' },
    );
    assert.equal(response.statusCode, 403);
    const signIn = await postForm(
      t,
      '/console/sign-in',
      { email: 'a@example.com' },
      { origin: 'https://evil.example' },
    );
    assert.equal(signIn.statusCode, 403);
  });

  it('refuses a form with a repeated field (400)', async () => {
    const { requestId, session } = await pending();
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/oauth/consent/session',
      headers: { ...session.headers, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `request_id=${requestId}&approve=false&approve=true&csrf_token=${session.csrf}`,
    });
    expectProblem(response, 400, 'invalid_request');
  });

  it('escapes what the client chose to call itself on the consent page', async () => {
    const org = await verifiedOrganization(t);
    const session = await signInConsole(t, org.email);
    const clientId = await registerClient(t, { client_name: '<script>alert(1)</script>' });
    const { consentPath } = await startAuthorization(t, clientId);
    const page = await t.app.inject({ method: 'GET', url: consentPath, headers: session.headers });
    assert.equal(page.statusCode, 200);
    assert.doesNotMatch(page.body, /<script>/);
    assert.match(page.body, /&#60;script&#62;alert\(1\)&#60;\/script&#62;/);
  });
});
