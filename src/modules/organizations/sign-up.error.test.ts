import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  activeOrganization,
  bearer,
  expectProblem,
  signUp,
  useApp,
  uniqueEmail,
  type TestApp,
} from '../../../test/harness.ts';

const verify = (t: TestApp, apiKey: string, code: string) =>
  t.app.inject({ method: 'POST', url: '/v1/agent/verify', headers: bearer(apiKey), payload: { code } });

const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('sign-up and verify reject bad input', () => {
  const t = useApp();

  it('two simultaneous first sign-ups with one email end on one organization, both answered 201', async () => {
    const email = uniqueEmail();
    const responses = await Promise.all(
      [1, 2].map(() => t.app.inject({ method: 'POST', url: '/v1/agent/sign-up', payload: { email } })),
    );
    assert.deepEqual(
      responses.map((r) => r.statusCode),
      [201, 201],
      responses.map((r) => r.body).join(' '),
    );
    assert.equal(responses[0].json().organization_id, responses[1].json().organization_id);
  });

  it('rejects malformed JSON with 400 invalid_request', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/agent/sign-up',
      headers: { 'content-type': 'application/json' },
      payload: '{"email": "a@example.com",',
    });
    expectProblem(response, 400, 'invalid_request');
  });

  it('rejects an empty JSON body with 400 invalid_request', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/agent/sign-up',
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expectProblem(response, 400, 'invalid_request');
  });

  it('rejects a form-encoded body with 415 unsupported_media_type', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/agent/sign-up',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'email=a%40example.com',
    });
    expectProblem(response, 415, 'unsupported_media_type');
  });

  it('rejects a text/plain body with 415 unsupported_media_type', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/agent/sign-up',
      headers: { 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expectProblem(response, 415, 'unsupported_media_type');
  });

  it('rejects a body over 256 KiB with 413 payload_too_large', async () => {
    const payload = JSON.stringify({ email: uniqueEmail(), organization_name: 'x'.repeat(256 * 1024) });
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/agent/sign-up',
      headers: { 'content-type': 'application/json' },
      payload,
    });
    expectProblem(response, 413, 'payload_too_large');
    assert.equal(response.json().detail, 'The request body exceeds 256 KiB.');
  });

  it('rejects an unknown body field with errors[].code unknown_field', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/agent/sign-up',
      payload: { email: uniqueEmail(), plan: 'pro' },
    });
    const body = expectProblem(response, 400, 'invalid_request');
    assert.deepEqual(body.errors, [{ field: 'plan', code: 'unknown_field', message: 'plan is not a known field.' }]);
  });

  it('rejects a missing email with errors[].code required', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/v1/agent/sign-up', payload: {} });
    const body = expectProblem(response, 400, 'invalid_request');
    assert.deepEqual(
      body.errors.map((e: { field: string; code: string }) => [e.field, e.code]),
      [['email', 'required']],
    );
  });

  for (const email of ['not-an-email', 'a@', '@example.com', 'a b@example.com', '']) {
    it(`rejects the bad email ${JSON.stringify(email)} with errors[] on email`, async () => {
      const response = await t.app.inject({ method: 'POST', url: '/v1/agent/sign-up', payload: { email } });
      const body = expectProblem(response, 400, 'invalid_request');
      assert.equal(body.errors[0].field, 'email');
      assert.equal(body.errors[0].code, 'invalid_format');
    });
  }

  it('rejects an email given as a number (no coercion of bodies)', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/v1/agent/sign-up', payload: { email: 12345 } });
    const body = expectProblem(response, 400, 'invalid_request');
    assert.equal(body.errors[0].code, 'invalid_type');
  });

  it('rejects an organization_name longer than 100 characters', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/agent/sign-up',
      payload: { email: uniqueEmail(), organization_name: 'x'.repeat(101) },
    });
    const body = expectProblem(response, 400, 'invalid_request');
    assert.deepEqual([body.errors[0].field, body.errors[0].code], ['organization_name', 'too_long']);
  });

  it('creates no organization when the body is invalid', async () => {
    const email = uniqueEmail();
    await t.app.inject({ method: 'POST', url: '/v1/agent/sign-up', payload: { email, extra: 1 } });
    const rows = await t.database.db.selectFrom('organizations').select('id').where('email', '=', email).execute();
    assert.equal(rows.length, 0);
    assert.equal(t.mail.sent.filter((m) => m.to === email).length, 0);
  });

  it('answers 409 conflict when a verified email signs up again', async () => {
    const org = await activeOrganization(t);
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/agent/sign-up',
      payload: { email: org.email.toUpperCase() },
    });
    expectProblem(response, 409, 'conflict');
    const who = await t.app.inject({ url: '/v1/auth/whoami', headers: org.headers });
    assert.equal(who.statusCode, 200, 'the verified key keeps working');
  });

  it('rejects a wrong code with 400 invalid_code and keeps the organization unverified', async () => {
    const org = await signUp(t);
    expectProblem(await verify(t, org.apiKey, wrong(org.code)), 400, 'invalid_code');
    const who = await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(org.apiKey) });
    assert.equal(who.json().status, 'unverified');
  });

  it('answers a code of the wrong shape as a wrong code (400 invalid_code, an attempt), and a code that is not a string with 400 invalid_request', async () => {
    const org = await signUp(t);
    for (const code of ['12345', 'abcdef', '1234567'])
      expectProblem(await verify(t, org.apiKey, code), 400, 'invalid_code');
    const attempts = await t.database.db
      .selectFrom('verification_codes')
      .select('attempts')
      .where('organization_id', '=', org.organizationId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(attempts.attempts), 3);
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/agent/verify',
        headers: bearer(org.apiKey),
        payload: { code: 123456 },
      }),
      400,
      'invalid_request',
    );
  });

  it('rejects the right code after 10 minutes with 400 invalid_code', async () => {
    const org = await signUp(t);
    t.clock.advance(10 * 60 * 1000);
    expectProblem(await verify(t, org.apiKey, org.code), 400, 'invalid_code');
  });

  it('accepts the right code just before it expires', async () => {
    const org = await signUp(t);
    t.clock.advance(10 * 60 * 1000 - 1);
    assert.equal((await verify(t, org.apiKey, org.code)).statusCode, 200);
  });

  it('kills the code after the 5th wrong attempt: code_expired even for the right code', async () => {
    const org = await signUp(t);
    for (let i = 0; i < 5; i++) expectProblem(await verify(t, org.apiKey, wrong(org.code)), 400, 'invalid_code');
    expectProblem(await verify(t, org.apiKey, org.code), 400, 'code_expired');
    expectProblem(await verify(t, org.apiKey, wrong(org.code)), 400, 'code_expired');
    const who = await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(org.apiKey) });
    assert.equal(who.json().status, 'unverified');
  });

  it('accepts the right code on the 5th attempt after 4 wrong ones', async () => {
    const org = await signUp(t);
    for (let i = 0; i < 4; i++) expectProblem(await verify(t, org.apiKey, wrong(org.code)), 400, 'invalid_code');
    assert.equal((await verify(t, org.apiKey, org.code)).statusCode, 200);
  });

  it('stores the code hashed, never in clear', async () => {
    const org = await signUp(t);
    const row = await t.database.db
      .selectFrom('verification_codes')
      .selectAll()
      .where('organization_id', '=', org.organizationId)
      .executeTakeFirstOrThrow();
    assert.doesNotMatch(row.code_hash, new RegExp(org.code));
    assert.match(row.code_hash, /^[0-9a-f]{64}$/);
  });

  it('a new sign-up after a dead code rotates the key (old key 401) and mails a fresh working code', async () => {
    const org = await signUp(t);
    for (let i = 0; i < 5; i++) await verify(t, org.apiKey, wrong(org.code));
    expectProblem(await verify(t, org.apiKey, org.code), 400, 'code_expired');

    const again = await signUp(t, org.email);
    assert.equal(again.organizationId, org.organizationId);
    assert.notEqual(again.apiKey, org.apiKey);
    assert.equal(t.mail.sent.filter((m) => m.to === org.email).length, 2);

    const old = await verify(t, org.apiKey, again.code);
    expectProblem(old, 401, 'unauthenticated');
    assert.match(
      String(old.headers['www-authenticate']),
      /^Bearer resource_metadata="http:\/\/cellgate\.test\/\.well-known\/oauth-protected-resource"/,
    );
    expectProblem(await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(org.apiKey) }), 401, 'unauthenticated');

    const ok = await verify(t, again.apiKey, again.code);
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(ok.json(), { organization_id: org.organizationId, status: 'active' });
  });

  it('the previous code stops working after a new sign-up', async () => {
    const org = await signUp(t);
    const again = await signUp(t, org.email);
    if (again.code !== org.code) expectProblem(await verify(t, again.apiKey, org.code), 400, 'invalid_code');
    assert.equal((await verify(t, again.apiKey, again.code)).statusCode, 200);
  });

  it('answers 409 conflict to verify on an already verified organization', async () => {
    const org = await activeOrganization(t);
    expectProblem(await verify(t, org.apiKey, org.code), 409, 'conflict');
  });

  it('answers 503 when the mailer fails, leaves nothing half-written, and a retry works', async () => {
    const email = uniqueEmail();
    t.mail.failNext = true;
    const failed = await t.app.inject({
      method: 'POST',
      url: '/v1/agent/sign-up',
      payload: { email, organization_name: 'Acme' },
    });
    expectProblem(failed, 503, 'unavailable');
    assert.ok(failed.headers['retry-after']);
    assert.equal(
      await t.database.db.selectFrom('organizations').select('id').where('email', '=', email).executeTakeFirst(),
      undefined,
    );

    const org = await signUp(t, email);
    assert.equal((await verify(t, org.apiKey, org.code)).statusCode, 200);
    const keys = await t.database.db
      .selectFrom('api_keys')
      .select('id')
      .where('organization_id', '=', org.organizationId)
      .execute();
    assert.equal(keys.length, 1);
  });

  it('when the mailer fails on a repeat sign-up, the earlier key and code keep working', async () => {
    const org = await signUp(t);
    t.mail.failNext = true;
    expectProblem(
      await t.app.inject({ method: 'POST', url: '/v1/agent/sign-up', payload: { email: org.email } }),
      503,
      'unavailable',
    );
    assert.equal((await verify(t, org.apiKey, org.code)).statusCode, 200);
    const active = await t.database.db
      .selectFrom('api_keys')
      .select('id')
      .where('organization_id', '=', org.organizationId)
      .where('revoked_at', 'is', null)
      .execute();
    assert.equal(active.length, 1);
  });
});

describe('sign-up flood from one address', () => {
  const t = useApp({ env: { CELLGATE_SIGNUP_RATE_LIMIT: '10' } });

  it('allows 10 sign-ups per hour per IP, counting down in RateLimit-*, then 429 rate_limited with Retry-After', async () => {
    for (let i = 0; i < 10; i++) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/v1/agent/sign-up',
        payload: { email: uniqueEmail() },
      });
      assert.equal(response.statusCode, 201, response.body);
      // Each answer describes the sign-up budget of the address, the tightest it took from.
      assert.equal(response.headers['ratelimit-limit'], '10');
      assert.equal(response.headers['ratelimit-remaining'], String(9 - i));
    }
    const email = uniqueEmail();
    const blocked = await t.app.inject({ method: 'POST', url: '/v1/agent/sign-up', payload: { email } });
    expectProblem(blocked, 429, 'rate_limited');
    const retryAfter = Number(blocked.headers['retry-after']);
    assert.ok(retryAfter >= 300 && retryAfter <= 360, `Retry-After ${retryAfter}`);
    assert.equal(blocked.headers['ratelimit-limit'], '10');
    assert.equal(blocked.headers['ratelimit-remaining'], '0');
    assert.equal(
      await t.database.db.selectFrom('organizations').select('id').where('email', '=', email).executeTakeFirst(),
      undefined,
    );

    const other = await t.app.inject({
      method: 'POST',
      url: '/v1/agent/sign-up',
      remoteAddress: '203.0.113.9',
      payload: { email: uniqueEmail() },
    });
    assert.equal(other.statusCode, 201, 'another address has its own budget');

    t.clock.advance(retryAfter * 1000);
    const later = await t.app.inject({ method: 'POST', url: '/v1/agent/sign-up', payload: { email: uniqueEmail() } });
    assert.equal(later.statusCode, 201);
  });

  it('counts an IPv6 client per /64 and an IPv4-mapped one as its IPv4: 25 addresses of one /64 sign up 10 organizations', async () => {
    t.clock.advance(3_600_000); // every address's budget is full again
    const statuses: number[] = [];
    for (let i = 1; i <= 25; i++) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/v1/agent/sign-up',
        remoteAddress: `2001:db8:77:1:${i.toString(16)}::${i}`,
        payload: { email: uniqueEmail() },
      });
      statuses.push(response.statusCode);
    }
    assert.deepEqual(statuses, [...Array(10).fill(201), ...Array(15).fill(429)], 'one budget for the whole /64');
    const neighbour = await t.app.inject({
      method: 'POST',
      url: '/v1/agent/sign-up',
      remoteAddress: '2001:db8:77:2::1',
      payload: { email: uniqueEmail() },
    });
    assert.equal(neighbour.statusCode, 201, 'the next /64 has its own budget');

    for (let i = 0; i < 10; i++) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/v1/agent/sign-up',
        remoteAddress: '198.51.100.60',
        payload: { email: uniqueEmail() },
      });
      assert.equal(response.statusCode, 201);
    }
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/agent/sign-up',
        remoteAddress: '::ffff:198.51.100.60',
        payload: { email: uniqueEmail() },
      }),
      429,
      'rate_limited',
    );
  });
});
