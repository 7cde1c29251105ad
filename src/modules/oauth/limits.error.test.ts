// Unauthenticated writes are bounded (contract §8, issue 22 item 8): per-address limits on
// /oauth/register and /oauth/authorize, and client metadata of at most 16 KB.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type TestApp, useApp } from '../../../test/harness.ts';
import { REDIRECT, authorizeUrl, expectOAuthError, pkce, registerPublic } from '../../../test/support/oauth-client.ts';

const HOUR = 60 * 60 * 1000;
const PUBLIC_CLIENT = { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' };
const registerFrom = (t: TestApp, address: string, payload: unknown = PUBLIC_CLIENT) =>
  t.app.inject({
    method: 'POST',
    url: '/oauth/register',
    remoteAddress: address,
    payload: payload as Record<string, unknown>,
  });

describe('OAuth registration limit per client address', () => {
  const t = useApp();

  it('registers 20 clients an hour from one address, then answers 429 rate_limited with Retry-After', async () => {
    for (let i = 0; i < 20; i += 1) assert.equal((await registerFrom(t, '198.51.100.1')).statusCode, 201);
    const blocked = await registerFrom(t, '198.51.100.1');
    expectOAuthError(blocked, 429, 'rate_limited');
    // One registration comes back every 3 minutes.
    assert.equal(blocked.headers['retry-after'], '180');
    assert.equal(blocked.headers['ratelimit-limit'], '20');
    assert.equal((await registerFrom(t, '198.51.100.2')).statusCode, 201, 'another address is not affected');
    t.clock.advance(3 * 60 * 1000);
    assert.equal((await registerFrom(t, '198.51.100.1')).statusCode, 201);
    expectOAuthError(await registerFrom(t, '198.51.100.1'), 429, 'rate_limited');
    t.clock.advance(HOUR);
    assert.equal((await registerFrom(t, '198.51.100.1')).statusCode, 201);
  });

  it('counts refused registrations too (a flood of bad metadata is limited as well)', async () => {
    for (let i = 0; i < 20; i += 1)
      expectOAuthError(await registerFrom(t, '198.51.100.3', { redirect_uris: [] }), 400, 'invalid_redirect_uri');
    expectOAuthError(await registerFrom(t, '198.51.100.3'), 429, 'rate_limited');
  });
});

describe('OAuth client metadata size', () => {
  const t = useApp();

  const padded = (bytes: number) => {
    const base = JSON.stringify({ ...PUBLIC_CLIENT, software_id: '' });
    return JSON.stringify({ ...PUBLIC_CLIENT, software_id: 'x'.repeat(bytes - base.length) });
  };

  it('registers a client whose metadata is exactly 16 KB', async () => {
    const body = padded(16 * 1024);
    assert.equal(Buffer.byteLength(body), 16 * 1024);
    const response = await t.app.inject({
      method: 'POST',
      url: '/oauth/register',
      headers: { 'content-type': 'application/json' },
      payload: body,
    });
    assert.equal(response.statusCode, 201, response.body);
  });

  it('refuses metadata one byte over 16 KB: 400 invalid_client_metadata, nothing stored', async () => {
    const before = await t.database.db
      .selectFrom('oauth_clients')
      .select(({ fn }) => fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const response = await t.app.inject({
      method: 'POST',
      url: '/oauth/register',
      headers: { 'content-type': 'application/json' },
      payload: padded(16 * 1024 + 1),
    });
    const body = expectOAuthError(response, 400, 'invalid_client_metadata');
    assert.match(body.error_description, /16 KB/);
    const after = await t.database.db
      .selectFrom('oauth_clients')
      .select(({ fn }) => fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(after.n), Number(before.n));
  });
});

describe('OAuth authorization request limit per client address', () => {
  let clientId: string;
  const t = useApp();
  before(async () => {
    clientId = (await registerPublic(t)).client_id;
  });

  const authorizeFrom = (address: string) =>
    t.app.inject({
      url: authorizeUrl({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
      remoteAddress: address,
    });

  it('takes 30 authorization requests a minute from one address, then shows a 429 page with Retry-After, never a redirect', async () => {
    for (let i = 0; i < 30; i += 1) assert.equal((await authorizeFrom('198.51.100.7')).statusCode, 303);
    const blocked = await authorizeFrom('198.51.100.7');
    assert.equal(blocked.statusCode, 429, blocked.body);
    assert.equal(blocked.headers.location, undefined);
    assert.match(String(blocked.headers['content-type']), /^text\/html/);
    assert.equal(blocked.headers['retry-after'], '2');
    assert.match(blocked.body, /Too many authorization requests/);
    assert.equal((await authorizeFrom('198.51.100.8')).statusCode, 303, 'another address is not affected');
    t.clock.advance(2000);
    assert.equal((await authorizeFrom('198.51.100.7')).statusCode, 303);
  });

  it('stores nothing for a limited request', async () => {
    for (let i = 0; i < 30; i += 1) await authorizeFrom('198.51.100.9');
    const count = async () =>
      Number(
        (
          await t.database.db
            .selectFrom('oauth_requests')
            .select(({ fn }) => fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    for (let i = 0; i < 10; i += 1) assert.equal((await authorizeFrom('198.51.100.9')).statusCode, 429);
    assert.equal(await count(), before);
  });
});
