// Secrets never reach a log (contract §9): a walk-through of every credential the service issues
// or accepts, through the public HTTP surface, with the production logger options writing into a
// captured stream at the most verbose level; then the whole log is searched for each secret.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import type { InjectOptions } from 'fastify';
import pino from 'pino';
import { admin, ADMIN_TOKEN, bearer, TEST_CREDIT, TEST_GRANT, uniqueEmail, type TestApp } from '../../test/harness.ts';
import { activeLine } from '../../test/support/messages.ts';
import { createEndpoint } from '../../test/support/webhooks.ts';
import { mcpClient, startListening, structured, type McpTestApp } from '../../test/support/mcp-client.ts';
import { basic, pkce, postForm, REDIRECT } from '../../test/support/oauth-client.ts';
import { loggerOptions } from './server.ts';

/** The production logger options at `level`, writing JSON lines into memory. */
function capturedLogger(level: string) {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: pino({ ...loggerOptions({ logLevel: level }) }, sink), lines };
}

/** A 6-digit code found in the log as a number of its own, not as digits of a timestamp or id. */
function contains(log: string, secret: string): boolean {
  if (/^\d+$/.test(secret)) return new RegExp(`(?<![0-9A-Za-z])${secret}(?![0-9A-Za-z])`).test(log);
  return log.includes(secret);
}

/** The newest kept mail to `to` whose subject matches; the code in its text. Mail sent after the answer may still be being kept. */
async function mailedCode(t: TestApp, to: string, subject: RegExp): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const response = await t.app.inject({ url: `/v1/admin/outbox?to=${encodeURIComponent(to)}`, headers: admin });
    assert.equal(response.statusCode, 200, response.body);
    const mail = (response.json().messages as { subject: string; text: string }[]).find((m) => subject.test(m.subject));
    const code = mail?.text.match(/\b(\d{6})\b/)?.[1];
    if (code) return code;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`no mail to ${to} matching ${subject}`);
}

describe('secrets in the logs', () => {
  let t: McpTestApp;
  const log = capturedLogger('trace');
  before(async () => {
    // No mailer: the dev mailer, which logs and keeps the mail in the outbox, as without SMTP.
    t = await startListening({ deps: { logger: log.logger, mailer: undefined } });
  });
  after(() => t?.close());

  it('logs none of the keys, codes, tokens and secrets of a whole walk-through', async () => {
    const secrets: Record<string, string> = { 'admin token': ADMIN_TOKEN };
    const inject = async (options: InjectOptions, status: number | number[]) => {
      const response = await t.app.inject(options);
      assert.ok(
        [status].flat().includes(response.statusCode),
        `${JSON.stringify(options)}: ${response.statusCode} ${response.body}`,
      );
      return response;
    };

    // Sign-up and verify with the mailed code.
    const email = uniqueEmail();
    const signedUp = (await inject({ method: 'POST', url: '/v1/agent/sign-up', payload: { email } }, 201)).json();
    const apiKey = signedUp.api_key as string;
    secrets['API key'] = apiKey;
    secrets['sign-up code'] = await mailedCode(t, email, /verification code/);
    await inject(
      { method: 'POST', url: '/v1/agent/verify', headers: bearer(apiKey), payload: { code: secrets['sign-up code'] } },
      200,
    );
    for (const [action, payload] of [
      ['grant', TEST_GRANT],
      ['credits', TEST_CREDIT],
    ] as const) {
      await inject(
        {
          method: 'POST',
          url: `/v1/admin/organizations/${signedUp.organization_id}/${action}`,
          headers: admin,
          payload,
        },
        200,
      );
    }
    const org = {
      email,
      apiKey,
      organizationId: signedUp.organization_id as string,
      code: secrets['sign-up code'],
      headers: bearer(apiKey),
    };

    // The API key in use; in a query string and in a path, refused.
    await inject({ url: '/v1/cells', headers: org.headers }, 200);
    await inject({ url: `/v1/cells?api_key=${apiKey}` }, [400, 401]);
    await inject({ url: `/v1/agent/status?key=${apiKey}&x=1` }, [400, 401]);
    await inject({ url: `/v1/cells/${apiKey}`, headers: org.headers }, [400, 404]);

    // A phone: its key in use, and in a query string.
    const line = await activeLine(t, {}, org);
    secrets['device key'] = line.device.key;
    await inject({ url: '/v1/device/messages/outbound', headers: line.device.headers }, 200);
    await inject({ url: `/v1/device/messages/outbound?device_key=${line.device.key}` }, [400, 401]);

    // OAuth: a confidential client, authorization with PKCE, consent, exchange, refresh, introspection.
    const client = (
      await inject(
        {
          method: 'POST',
          url: '/oauth/register',
          payload: {
            redirect_uris: [REDIRECT],
            grant_types: ['authorization_code', 'refresh_token'],
            client_name: 'Log test',
            token_endpoint_auth_method: 'client_secret_basic',
          },
        },
        201,
      )
    ).json();
    secrets['client secret'] = client.client_secret;
    const { verifier, challenge } = pkce();
    secrets['PKCE verifier'] = verifier;
    secrets.state = 'st-LogSecretState0123456789';
    const authorizeQuery = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      scope: 'cells:read messages:read',
      state: secrets.state,
      resource: `${t.origin}/mcp`,
    });
    const authorized = await inject({ url: `/oauth/authorize?${authorizeQuery}` }, 303);
    const requestId = new URL(String(authorized.headers.location)).searchParams.get('request');
    const consent = (
      await inject(
        {
          method: 'POST',
          url: '/v1/oauth/consent',
          headers: org.headers,
          payload: { request_id: requestId, approve: true },
        },
        200,
      )
    ).json();
    const code = new URL(consent.redirect_url).searchParams.get('code') ?? '';
    secrets['authorization code'] = code;
    const clientAuth = basic(client.client_id, client.client_secret);
    const tokens = (
      await postForm(
        t,
        '/oauth/token',
        {
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          redirect_uri: REDIRECT,
          resource: `${t.origin}/mcp`,
        },
        clientAuth,
      )
    ).json();
    assert.match(tokens.access_token, /^cg_at_/);
    secrets['access token'] = tokens.access_token;
    secrets['refresh token'] = tokens.refresh_token;
    const refreshed = (
      await postForm(
        t,
        '/oauth/token',
        { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
        clientAuth,
      )
    ).json();
    assert.match(refreshed.access_token, /^cg_at_/);
    secrets['refreshed access token'] = refreshed.access_token;
    secrets['refreshed refresh token'] = refreshed.refresh_token;
    const introspected = await postForm(t, '/oauth/introspect', { token: refreshed.access_token }, clientAuth);
    assert.equal(introspected.json().active, true, introspected.body);
    // Secrets in query strings, refused.
    await inject(
      {
        method: 'POST',
        url: `/oauth/token?client_secret=${client.client_secret}&refresh_token=${refreshed.refresh_token}`,
      },
      [400, 401, 415],
    );
    await inject({ url: `/v1/agent/status?access_token=${refreshed.access_token}` }, [400, 401]);

    // MCP with the access token.
    const mcp = await mcpClient(t, refreshed.access_token);
    try {
      const status = await mcp.callTool({ name: 'get_status', arguments: {} });
      assert.equal(structured(status).cells.active, 1);
    } finally {
      await mcp.close();
    }

    // A card checkout: its page and its payment carry a token in the query string.
    const started = (
      await inject(
        {
          method: 'POST',
          url: '/v1/billing/checkout',
          headers: org.headers,
          payload: { intent: 'top_up', amount_usd: '25.00' },
        },
        201,
      )
    ).json();
    const checkout = new URL(started.checkout_url);
    secrets['checkout token'] = checkout.searchParams.get('token') ?? '';
    assert.ok(secrets['checkout token'], started.checkout_url);
    await inject({ url: checkout.pathname + checkout.search }, 200);
    await inject(
      {
        method: 'POST',
        url: checkout.pathname + checkout.search,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: '',
      },
      200,
    );

    // Console sign-in by a mailed code; the session cookie in use.
    await postForm(t, '/console/sign-in', { email });
    secrets['console sign-in code'] = await mailedCode(t, email, /sign-in code/);
    const signedIn = await postForm(t, '/console/sign-in/code', { email, code: secrets['console sign-in code'] });
    assert.equal(signedIn.statusCode, 303, signedIn.body);
    const session = String([signedIn.headers['set-cookie']].flat()[0]).match(/^cg_console=([^;]+)/)?.[1] ?? '';
    assert.ok(session, 'a session cookie is set');
    secrets['console session'] = session;
    await inject({ url: '/console/grants', headers: { cookie: `cg_console=${session}` } }, 200);

    // A webhook endpoint: its signing secret.
    const endpoint = await createEndpoint(t, org.headers, 'http://127.0.0.1:9/hook');
    secrets['webhook secret'] = endpoint.secret;

    const text = log.lines.join('');
    // The log is not empty: every request above left its line (the checkout's too, redacted).
    assert.ok(log.lines.length > 30, `only ${log.lines.length} log lines`);
    for (const [name, value] of Object.entries(secrets)) {
      assert.ok(value, `${name} was seen`);
      const line = log.lines.find((l) => contains(l, value));
      assert.equal(line, undefined, `the ${name} is in the log: ${line}`);
    }
    assert.ok(
      text.includes(`"url":"${checkout.pathname}?token=[REDACTED]"`),
      'the checkout page request is logged with its token redacted',
    );
  });
});
