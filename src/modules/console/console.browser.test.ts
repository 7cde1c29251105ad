// End to end in a real browser (playwright-core driving Debian's Chromium): an OAuth client
// registers and starts an authorization with PKCE; the browser lands on the console, signs in
// with the code from a real SMTP sink, approves, and arrives at the client's redirect URI; the
// client exchanges the code and calls whoami with the token. Screenshots of the sign-in and
// consent pages go to test-artifacts/console/ with CELLGATE_TEST_SCREENSHOTS=1. Skipped only where no Chromium exists.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { startSmtpSink, type SmtpSink } from '../../../test/support/smtp-sink.ts';
import { uniqueEmail, type TestApp } from '../../../test/harness.ts';
import { launchChromium, listeningApp, screenshot, skipWithoutChromium } from '../../../test/support/browser.ts';
import { pkce } from '../../../test/support/console.ts';

const portOf = (server: { address(): unknown }) => (server.address() as AddressInfo).port;

describe('console in a browser', { skip: skipWithoutChromium }, () => {
  let smtp: SmtpSink;
  let client: Server;
  let t: TestApp;
  let browser: Browser;
  let base: string;

  before(async () => {
    smtp = await startSmtpSink();
    // The client's redirect URI: a page that says the app is connected.
    client = createServer((_request, response) =>
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end('<!doctype html><title>Connected</title><p>Connected.</p>'),
    );
    await new Promise<void>((resolve) => client.listen(0, '127.0.0.1', resolve));

    ({ t, base } = await listeningApp({ env: { CELLGATE_SMTP_URL: smtp.url }, deps: { mailer: undefined } }));
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    await new Promise<void>((resolve) => client.close(() => resolve()));
    await smtp.close();
  });

  /** The latest code of `kind` mailed to `email`, as the SMTP sink received it. */
  async function mailedCode(email: string, kind: RegExp): Promise<string> {
    for (let i = 0; i < 200; i++) {
      const code = smtp.inbox.findLast((m) => m.to.includes(email) && kind.test(m.raw))?.raw.match(kind)?.[1];
      if (code) return code;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`no code reached the SMTP sink for ${email}`);
  }

  /** A verified organization, signed up and verified over HTTP with the code from the sink. */
  async function verifiedOrganization() {
    const email = uniqueEmail();
    const signUp = await fetch(`${base}/v1/agent/sign-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, organization_name: 'Browser Org' }),
    });
    assert.equal(signUp.status, 201);
    const { api_key: apiKey, organization_id: organizationId } = (await signUp.json()) as {
      api_key: string;
      organization_id: string;
    };
    const code = await mailedCode(email, /verification code is (\d{6})/);
    const verify = await fetch(`${base}/v1/agent/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ code }),
    });
    assert.equal(verify.status, 200);
    return { email, organizationId };
  }

  it('registers a client, signs in with the mailed code, approves, and the client calls whoami with its token', async () => {
    const org = await verifiedOrganization();
    const redirectUri = `http://127.0.0.1:${portOf(client)}/callback`;
    const registered = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Acme Assistant',
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
      }),
    });
    assert.equal(registered.status, 201);
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const { verifier, challenge } = pkce();
    const authorize = new URL(`${base}/oauth/authorize`);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'browser-state',
      scope: 'cells:read messages:read messages:send',
      resource: `${base}/v1`,
    }))
      authorize.searchParams.set(name, value);

    const page = await browser.newPage();
    // The authorization request → the consent page → sign-in (no session yet).
    await page.goto(authorize.toString());
    await page.waitForURL((url) => url.pathname === '/console/sign-in');
    assert.equal(await page.title(), 'Sign in — Cellgate Console');
    assert.equal(await page.locator('html').getAttribute('lang'), 'en');
    await screenshot(page, 'console', 'sign-in');

    // By keyboard: the labelled field, Enter to submit.
    await page.getByLabel('Email address').fill(org.email);
    await page.getByLabel('Email address').press('Enter');
    await page.getByLabel('Sign-in code').waitFor();
    await screenshot(page, 'console', 'sign-in-code');
    await page.getByLabel('Sign-in code').fill(await mailedCode(org.email, /sign-in code is (\d{6})/));
    await page.getByRole('button', { name: 'Sign in' }).press('Enter');

    // Back on the consent page, signed in.
    await page.waitForURL((url) => url.pathname === '/console/consent');
    assert.equal(await page.title(), 'Authorize Acme Assistant — Cellgate Console');
    const heading = await page.getByRole('heading', { level: 1 }).textContent();
    assert.match(String(heading), /Allow Acme Assistant to access/);
    const body = String(await page.locator('main').textContent());
    assert.match(body, /127\.0\.0\.1/);
    assert.match(body, /Read your messages and conversations/);
    assert.match(body, /Send text messages from your cells/);
    assert.match(body, new RegExp(`the Cellgate REST API ${base.replace(/[.]/g, '\\.')}/v1`));
    await screenshot(page, 'console', 'consent');

    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL((url) => url.href.startsWith(redirectUri));
    const landed = new URL(page.url());
    assert.equal(landed.searchParams.get('state'), 'browser-state');
    assert.equal(landed.searchParams.get('iss'), base);
    const code = landed.searchParams.get('code');
    assert.ok(code);
    assert.equal(await page.title(), 'Connected');

    // The cookie the browser holds: HttpOnly, SameSite=Lax, for the console and the consent route.
    const cookies = (await page.context().cookies()).filter((c) => c.name === 'cg_console');
    assert.deepEqual(cookies.map((c) => c.path).sort(), ['/console', '/v1/oauth/consent/session']);
    for (const cookie of cookies) {
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.sameSite, 'Lax');
      assert.equal(cookie.secure, false, 'http console: not Secure');
    }

    const token = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: redirectUri,
        client_id: clientId,
        resource: `${base}/v1`,
      }),
    });
    assert.equal(token.status, 200, await token.clone().text());
    const { access_token: accessToken } = (await token.json()) as { access_token: string };
    const who = await fetch(`${base}/v1/auth/whoami`, { headers: { authorization: `Bearer ${accessToken}` } });
    assert.equal(who.status, 200);
    const whoami = (await who.json()) as { credential_type: string; organization_id: string; scopes: string[] };
    assert.equal(whoami.credential_type, 'oauth_token');
    assert.equal(whoami.organization_id, org.organizationId);
    assert.deepEqual(whoami.scopes, ['cells:read', 'messages:read', 'messages:send']);

    // The grant is on the grants page; signing out by keyboard ends the session.
    await page.goto(`${base}/console/grants`);
    assert.match(String(await page.locator('main').textContent()), /Acme Assistant/);
    await page.getByRole('button', { name: 'Sign out' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.pathname === '/console/sign-in');
    assert.equal((await page.context().cookies()).filter((c) => c.name === 'cg_console').length, 0);
  });
});
