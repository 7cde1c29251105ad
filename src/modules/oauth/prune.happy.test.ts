// Nothing unauthenticated callers leave behind is kept for ever (contract §8, issue 22 item 8):
// authorization requests are deleted once expired (10 minutes), registered clients that never got
// a grant 24 hours after registration. The prune loop (oauth-prune) calls OAuthService.prune; the
// tests call it on the manual clock.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, useApp, verifiedOrganization } from '../../../test/harness.ts';
import {
  REDIRECT,
  authorize,
  codeFor,
  consent,
  expectOAuthError,
  newRequestId,
  postForm,
  registerPublic,
  tokensFor,
} from '../../../test/support/oauth-client.ts';

const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;

describe('pruning OAuth authorization requests', () => {
  let org: Awaited<ReturnType<typeof verifiedOrganization>>;
  let clientId: string;
  const t = useApp();
  before(async () => {
    org = await verifiedOrganization(t);
    clientId = (await registerPublic(t)).client_id;
  });

  const stored = async (id: string) =>
    (await t.database.db.selectFrom('oauth_requests').select('id').where('id', '=', id).executeTakeFirst()) !==
    undefined;

  it('keeps a pending or denied request its 10 minutes, then deletes it', async () => {
    const pending = await newRequestId(t, clientId);
    const denied = await newRequestId(t, clientId);
    await consent(t, org.headers, denied, false);
    t.clock.advance(10 * MINUTE - 1);
    assert.deepEqual(await t.services.oauth.prune(), { requests: 0, clients: 0 });
    assert.equal((await t.app.inject({ url: `/v1/oauth/requests/${pending}`, headers: org.headers })).statusCode, 200);

    t.clock.advance(1);
    assert.equal((await t.services.oauth.prune()).requests, 2);
    assert.equal(await stored(pending), false);
    assert.equal(await stored(denied), false);
    expectProblem(await t.app.inject({ url: `/v1/oauth/requests/${pending}`, headers: org.headers }), 404, 'not_found');
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/oauth/consent',
        headers: org.headers,
        payload: { request_id: pending, approve: true },
      }),
      404,
      'not_found',
    );
    assert.equal((await t.services.oauth.prune()).requests, 0, 'idempotent');
  });

  it('keeps an approved request an hour past its code, so a late replay of the code still revokes the grant', async () => {
    const { code, verifier, requestId } = await codeFor(t, org.headers, clientId);
    const fields = {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
    };
    const issued = await postForm(t, '/oauth/token', fields);
    assert.equal(issued.statusCode, 200, issued.body);
    const grants = async () =>
      (await t.app.inject({ url: '/v1/oauth/grants', headers: org.headers })).json().grants.length;
    assert.equal(await grants(), 1);
    // The code expired 60 s after the approval; the request is kept an hour past that.
    t.clock.advance(MINUTE + HOUR - 1);
    await t.services.oauth.prune();
    assert.equal(await stored(requestId), true);
    expectOAuthError(await postForm(t, '/oauth/token', fields), 400, 'invalid_grant');
    assert.equal(await grants(), 0, 'the replay revoked the grant');

    t.clock.advance(1);
    await t.services.oauth.prune();
    assert.equal(await stored(requestId), false);
  });
});

describe('pruning OAuth clients', () => {
  let org: Awaited<ReturnType<typeof verifiedOrganization>>;
  const t = useApp();
  before(async () => {
    org = await verifiedOrganization(t);
  });

  const stored = async (id: string) =>
    (await t.database.db.selectFrom('oauth_clients').select('id').where('id', '=', id).executeTakeFirst()) !==
    undefined;

  it('deletes a registered client with no grant 24 hours after registration, and keeps one with a grant', async () => {
    const unused = (await registerPublic(t)).client_id;
    const used = (await registerPublic(t)).client_id;
    const tokens = await tokensFor(t, org.headers, used);
    // Its revoked grant still keeps a client: the grant's history names it.
    const revoked = (await registerPublic(t)).client_id;
    await tokensFor(t, org.headers, revoked);
    const [grant] = (await t.app.inject({ url: '/v1/oauth/grants', headers: org.headers }))
      .json()
      .grants.filter((g: { client_id: string }) => g.client_id === revoked);
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/v1/oauth/grants/${grant.id}`, headers: org.headers })).statusCode,
      204,
    );

    t.clock.advance(24 * HOUR - 1);
    assert.equal((await t.services.oauth.prune()).clients, 0);
    assert.equal(await stored(unused), true);

    t.clock.advance(1);
    assert.equal((await t.services.oauth.prune()).clients, 1);
    assert.equal(await stored(unused), false);
    assert.equal(await stored(used), true);
    assert.equal(await stored(revoked), true);
    const page = await authorize(t, {
      response_type: 'code',
      client_id: unused,
      redirect_uri: REDIRECT,
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
    });
    assert.equal(page.statusCode, 400);
    assert.match(page.body, /not a registered client/);
    assert.equal(
      (await t.app.inject({ url: '/v1/auth/whoami', headers: { authorization: `Bearer ${tokens.access_token}` } }))
        .statusCode,
      401,
      'the access token expired meanwhile',
    );
  });

  it('keeps an unused client while a user is consenting to it, and deletes it with its request after', async () => {
    const clientId = (await registerPublic(t)).client_id;
    t.clock.advance(24 * HOUR - 5 * MINUTE);
    const requestId = await newRequestId(t, clientId);
    t.clock.advance(5 * MINUTE);
    await t.services.oauth.prune();
    assert.equal(await stored(clientId), true);
    assert.equal(
      (await t.app.inject({ url: `/v1/oauth/requests/${requestId}`, headers: org.headers })).statusCode,
      200,
    );

    t.clock.advance(5 * MINUTE);
    const pruned = await t.services.oauth.prune();
    assert.equal(pruned.clients, 1);
    assert.equal(await stored(clientId), false);
  });
});
