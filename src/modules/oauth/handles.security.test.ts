// Capability handles (issue 22 item 7): every id or token that is itself the proof of access
// (a consent link's authorization request, a code, a checkout link's token, a console session)
// is random, so one minted beside another says nothing about it; and a second organization
// cannot approve an authorization request it did not start.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, expectProblem, useApp, verifiedOrganization } from '../../../test/harness.ts';
import { signInConsole } from '../../../test/support/console.ts';
import {
  REDIRECT,
  authorize,
  consent,
  newRequestId,
  pkce,
  postForm,
  registerPublic,
  requestIdOf,
} from '../../../test/support/oauth-client.ts';

const HANDLES_AT_ONCE = 6;

/**
 * Handles minted at one instant of the clock share nothing guessable beyond their type prefix:
 * at least 128 bits of base62, no common beginning, not one step apart (a time-ordered id minted
 * in the same millisecond shares its first 10 characters and differs from the next by one).
 */
function assertUnguessable(handles: string[], prefix: string) {
  assert.equal(new Set(handles).size, handles.length, 'all distinct');
  const bodies = handles.map((handle) => {
    assert.ok(handle.startsWith(prefix), `${handle} starts with ${prefix}`);
    return handle.slice(prefix.length);
  });
  for (const body of bodies) {
    assert.match(body, /^[A-Za-z0-9]+$/);
    assert.ok(body.length * Math.log2(62) >= 128, `${body}: at least 128 bits`);
  }
  for (let i = 1; i < bodies.length; i += 1) {
    const [a, b] = [bodies[i - 1], bodies[i]];
    let common = 0;
    while (common < a.length && a[common] === b[common]) common += 1;
    assert.ok(common <= 3, `${prefix}${a} and ${prefix}${b} share a ${common}-character beginning`);
    const differing = [...a].filter((char, at) => char !== b[at]).length;
    assert.ok(differing >= a.length / 2, `${prefix}${a} and ${prefix}${b} differ in only ${differing} characters`);
  }
}

/** What an attacker holding one id would try: the ids a step or three away, and every last character. */
function neighbours(id: string): string[] {
  const prefix = id.slice(0, id.indexOf('_') + 1);
  const body = id.slice(prefix.length);
  const guesses = new Set<string>();
  const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
  if (body.length === 26 && [...body].every((c) => CROCKFORD.includes(c))) {
    // A ULID: step its 128-bit value (monotonic ids minted in one millisecond are one step apart).
    const value = [...body].reduce((n, c) => n * 32n + BigInt(CROCKFORD.indexOf(c)), 0n);
    for (const step of [-3n, -2n, -1n, 1n, 2n, 3n]) {
      let n = value + step;
      let out = '';
      for (let i = 0; i < 26; i += 1, n /= 32n) out = CROCKFORD[Number(n % 32n)] + out;
      guesses.add(prefix + out);
    }
  }
  for (const c of '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz')
    guesses.add(prefix + body.slice(0, -1) + c);
  guesses.delete(id);
  return [...guesses];
}

describe('capability handles minted in the same millisecond', () => {
  let org: Awaited<ReturnType<typeof verifiedOrganization>>;
  let clientId: string;
  const t = useApp();
  before(async () => {
    org = await verifiedOrganization(t);
    clientId = (await registerPublic(t)).client_id;
  });

  it('gives authorization requests random handles, never time-ordered ids', async () => {
    const handles: string[] = [];
    for (let i = 0; i < HANDLES_AT_ONCE; i += 1) handles.push(await newRequestId(t, clientId));
    assertUnguessable(handles, 'oar_');
  });

  it('gives authorization codes random values', async () => {
    const codes: string[] = [];
    for (let i = 0; i < HANDLES_AT_ONCE; i += 1) {
      const redirect = await consent(t, org.headers, await newRequestId(t, clientId));
      codes.push(redirect.searchParams.get('code') ?? '');
    }
    assertUnguessable(codes, 'cg_ac_');
  });

  it('gives checkout links random tokens', async () => {
    const tokens: string[] = [];
    for (let i = 0; i < HANDLES_AT_ONCE; i += 1) {
      const started = await t.app.inject({
        method: 'POST',
        url: '/v1/billing/checkout',
        headers: org.headers,
        payload: { intent: 'top_up', amount_usd: '5.00' },
      });
      assert.equal(started.statusCode, 201, started.body);
      tokens.push(new URL(started.json().checkout_url).searchParams.get('token') ?? '');
    }
    assertUnguessable(tokens, '');
  });

  it('gives console sessions random cookies and CSRF tokens', async () => {
    const sessions = [];
    for (let i = 0; i < HANDLES_AT_ONCE; i += 1) sessions.push(await signInConsole(t, org.email));
    assertUnguessable(
      sessions.map((s) => s.cookie.slice('cg_console='.length)),
      'cg_cs_',
    );
    assertUnguessable(
      sessions.map((s) => s.csrf),
      '',
    );
  });
});

describe('an authorization request and the organization that did not start it', () => {
  const t = useApp();

  it('cannot be found, read or approved from a request minted beside it; its own organization approves it', async () => {
    const victim = await verifiedOrganization(t);
    const attacker = await verifiedOrganization(t);
    const clientId = (await registerPublic(t)).client_id;
    // Same clock instant: with time-ordered ids the attacker's own request was the victim's plus one.
    const { verifier, challenge } = pkce();
    const victimRequest = requestIdOf(
      await authorize(t, {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
    );
    const attackerRequest = await newRequestId(t, clientId);
    for (const guess of neighbours(attackerRequest)) {
      const read = await t.app.inject({ url: `/v1/oauth/requests/${guess}`, headers: attacker.headers });
      expectProblem(read, 404, 'not_found');
      expectProblem(
        await t.app.inject({
          method: 'POST',
          url: '/v1/oauth/consent',
          headers: attacker.headers,
          payload: { request_id: guess, approve: true },
        }),
        404,
        'not_found',
      );
    }

    // The victim reads (holds) and approves its request; the code makes a token of its organization.
    assert.equal(
      (await t.app.inject({ url: `/v1/oauth/requests/${victimRequest}`, headers: victim.headers })).statusCode,
      200,
    );
    // Even with the handle in hand, another organization cannot take over a request already held.
    expectProblem(
      await t.app.inject({ url: `/v1/oauth/requests/${victimRequest}`, headers: attacker.headers }),
      404,
      'not_found',
    );
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/oauth/consent',
        headers: attacker.headers,
        payload: { request_id: victimRequest, approve: true },
      }),
      404,
      'not_found',
    );
    const redirect = await consent(t, victim.headers, victimRequest);
    const code = redirect.searchParams.get('code') ?? '';
    const issued = await postForm(t, '/oauth/token', {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
    });
    assert.equal(issued.statusCode, 200, issued.body);
    const whoami = await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(issued.json().access_token) });
    assert.equal(whoami.json().organization_id, victim.organizationId);
    const grants = await t.app.inject({ url: '/v1/oauth/grants', headers: attacker.headers });
    assert.deepEqual(grants.json().grants, [], 'the attacker holds no grant');
  });

  it("refuses a console consent post for another organization's request (404) and leaves it pending for its owner", async () => {
    const owner = await verifiedOrganization(t);
    const other = await verifiedOrganization(t);
    const clientId = (await registerPublic(t)).client_id;
    const requestId = await newRequestId(t, clientId);
    assert.equal(
      (await t.app.inject({ url: `/v1/oauth/requests/${requestId}`, headers: owner.headers })).statusCode,
      200,
    );
    const session = await signInConsole(t, other.email);
    const posted = await t.app.inject({
      method: 'POST',
      url: '/v1/oauth/consent/session',
      headers: { cookie: session.cookie, 'content-type': 'application/json' },
      payload: { request_id: requestId, approve: true, csrf_token: session.csrf },
    });
    expectProblem(posted, 404, 'not_found');
    const read = await t.app.inject({ url: `/v1/oauth/requests/${requestId}`, headers: owner.headers });
    assert.equal(read.json().status, 'pending');
  });
});
