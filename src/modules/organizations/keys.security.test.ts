import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  activeOrganization,
  admin,
  ADMIN_TOKEN,
  bearer,
  expectProblem,
  signUp,
  useApp,
} from '../../../test/harness.ts';

const encodeCursorForTest = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A 401 on an agent route names the OAuth protected-resource metadata (RFC 9728); the admin surface says Bearer. */
function expectUnauthenticated(response: Parameters<typeof expectProblem>[0], surface: 'agent' | 'admin' = 'agent') {
  expectProblem(response, 401, 'unauthenticated');
  const challenge = String(response.headers['www-authenticate']);
  if (surface === 'admin') assert.equal(challenge, 'Bearer');
  else
    assert.match(
      challenge,
      /^Bearer resource_metadata="http:\/\/cellgate\.test\/\.well-known\/oauth-protected-resource"/,
    );
}

describe('credentials on the customer surface', () => {
  const t = useApp();

  it('a missing Authorization header is 401 with WWW-Authenticate: Bearer and the resource metadata', async () => {
    expectUnauthenticated(await t.app.inject({ url: '/v1/auth/whoami' }));
  });

  for (const [label, header] of [
    ['a non-Bearer scheme', 'Basic dXNlcjpwYXNz'],
    ['an empty bearer', 'Bearer '],
    ['a garbled key', 'Bearer cg_live_notarealkey'],
    ['a key of the right shape that was never issued', `Bearer cg_live_${'A'.repeat(32)}`],
    ['an unprefixed token', 'Bearer 0123456789abcdef'],
    ['an unknown OAuth access token', `Bearer cg_at_${'b'.repeat(32)}`],
    ['a header with spaces in the token', 'Bearer cg_live_a b'],
  ] as const) {
    it(`${label} is 401 unauthenticated`, async () => {
      expectUnauthenticated(await t.app.inject({ url: '/v1/auth/whoami', headers: { authorization: header } }));
    });
  }

  it('a key revoked by a repeat sign-up is 401 immediately', async () => {
    const org = await signUp(t);
    assert.equal((await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(org.apiKey) })).statusCode, 200);
    await signUp(t, org.email);
    expectUnauthenticated(await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(org.apiKey) }));
  });

  it('the admin token on an agent route is 401', async () => {
    expectUnauthenticated(await t.app.inject({ url: '/v1/auth/whoami', headers: admin }));
    expectUnauthenticated(await t.app.inject({ method: 'POST', url: '/v1/auth/keys', headers: admin, payload: {} }));
  });

  it('a device key (X-Phone-Key) on an agent route is 401', async () => {
    expectUnauthenticated(
      await t.app.inject({ url: '/v1/auth/whoami', headers: { 'x-phone-key': `cg_dev_${'c'.repeat(32)}` } }),
    );
    expectUnauthenticated(await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(`cg_dev_${'c'.repeat(32)}`) }));
  });

  it('an unauthenticated request learns nothing about its body', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/v1/auth/keys', payload: { bogus: true } });
    expectUnauthenticated(response);
  });

  it('an unverified organization is refused before its body is validated (admission runs in onRequest)', async () => {
    const org = await signUp(t);
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/auth/keys',
        headers: bearer(org.apiKey),
        payload: { bogus: true, name: '' },
      }),
      403,
      'organization_unverified',
    );
  });

  it('an unverified organization gets 403 organization_unverified on verified-only routes', async () => {
    const org = await signUp(t);
    expectProblem(
      await t.app.inject({ url: '/v1/auth/keys', headers: bearer(org.apiKey) }),
      403,
      'organization_unverified',
    );
    expectProblem(
      await t.app.inject({ method: 'POST', url: '/v1/auth/keys', headers: bearer(org.apiKey), payload: {} }),
      403,
      'organization_unverified',
    );
    const rows = await t.database.db
      .selectFrom('api_keys')
      .select('id')
      .where('organization_id', '=', org.organizationId)
      .execute();
    assert.equal(rows.length, 1, 'no key was created');
    assert.equal(
      (await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(org.apiKey) })).statusCode,
      200,
      'whoami stays open',
    );
  });

  it('a key of another organization cannot revoke mine (404, never reveals it)', async () => {
    const mine = await activeOrganization(t);
    const theirs = await activeOrganization(t);
    await t.app.inject({ method: 'POST', url: '/v1/auth/keys', headers: mine.headers, payload: {} });
    const myKeyId = (await t.app.inject({ url: '/v1/auth/whoami', headers: mine.headers })).json().key.id;
    expectProblem(
      await t.app.inject({ method: 'DELETE', url: `/v1/auth/keys/${myKeyId}`, headers: theirs.headers }),
      404,
      'not_found',
    );
    assert.equal((await t.app.inject({ url: '/v1/auth/whoami', headers: mine.headers })).statusCode, 200);
    const theirList = (await t.app.inject({ url: '/v1/auth/keys', headers: theirs.headers })).json();
    assert.ok(theirList.keys.every((k: { id: string }) => k.id !== myKeyId));
  });

  for (const query of ['limit=0', 'limit=201', 'limit=-1', 'limit=abc', 'limit=1.5']) {
    it(`?${query} on the key list is 400 invalid_request`, async () => {
      const org = await activeOrganization(t);
      const body = expectProblem(
        await t.app.inject({ url: `/v1/auth/keys?${query}`, headers: org.headers }),
        400,
        'invalid_request',
      );
      assert.equal(body.errors[0].field, 'limit');
    });
  }

  for (const cursor of [
    'garbage!!',
    'bm90IGpzb24',
    encodeCursorForTest(['a', 'b']),
    encodeCursorForTest({ id: 'x' }),
  ]) {
    it(`a forged cursor ${cursor} is 400 invalid_request`, async () => {
      const org = await activeOrganization(t);
      const body = expectProblem(
        await t.app.inject({ url: `/v1/auth/keys?cursor=${encodeURIComponent(cursor)}`, headers: org.headers }),
        400,
        'invalid_request',
      );
      assert.equal(body.errors[0].field, 'cursor');
    });
  }
});

describe('credentials on the administrative surface', () => {
  const t = useApp();

  it('the admin token reads the dev outbox', async () => {
    const response = await t.app.inject({ url: '/v1/admin/outbox', headers: admin });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { messages: [], next_cursor: null });
  });

  it('a valid agent API key on /v1/admin is 403 forbidden', async () => {
    const org = await activeOrganization(t);
    expectProblem(await t.app.inject({ url: '/v1/admin/outbox', headers: org.headers }), 403, 'forbidden');
  });

  it('an unknown agent key on /v1/admin is 401, not 403', async () => {
    expectUnauthenticated(
      await t.app.inject({ url: '/v1/admin/outbox', headers: bearer(`cg_live_${'Z'.repeat(32)}`) }),
      'admin',
    );
  });

  it('missing, unknown or device credentials on /v1/admin are 401', async () => {
    expectUnauthenticated(await t.app.inject({ url: '/v1/admin/outbox' }), 'admin');
    expectUnauthenticated(await t.app.inject({ url: '/v1/admin/outbox', headers: bearer(`${ADMIN_TOKEN}x`) }), 'admin');
    expectUnauthenticated(
      await t.app.inject({ url: '/v1/admin/outbox', headers: { 'x-phone-key': `cg_dev_${'d'.repeat(32)}` } }),
      'admin',
    );
    expectUnauthenticated(
      await t.app.inject({ url: '/v1/admin/outbox', headers: bearer(`cg_dev_${'d'.repeat(32)}`) }),
      'admin',
    );
  });

  it('an admin token created with the service works and carries no agent rights', async () => {
    const created = await t.services.admin.createToken('ops');
    assert.match(created.token, /^cg_adm_[0-9A-Za-z]{32}$/);
    assert.equal((await t.app.inject({ url: '/v1/admin/outbox', headers: bearer(created.token) })).statusCode, 200);
    expectUnauthenticated(await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(created.token) }));
  });
});
