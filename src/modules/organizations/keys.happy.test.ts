import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, bearer, expectProblem, signUp, useApp } from '../../../test/harness.ts';

describe('API keys: whoami, list, create, revoke', () => {
  const t = useApp();

  it('whoami returns exactly the contract fields for an API key', async () => {
    const org = await signUp(t);
    t.clock.advance(1000);
    const response = await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(org.apiKey) });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.deepEqual(Object.keys(body).sort(), [
      'credential_type',
      'key',
      'organization_id',
      'organization_name',
      'scopes',
      'status',
    ]);
    assert.equal(body.organization_id, org.organizationId);
    assert.equal(body.organization_name, org.email);
    assert.equal(body.status, 'unverified');
    assert.equal(body.credential_type, 'api_key');
    assert.deepEqual(Object.keys(body.key).sort(), ['created_at', 'id', 'last_used_at', 'prefix']);
    assert.match(body.key.id, /^key_/);
    assert.equal(body.key.prefix, org.apiKey.slice(0, 12));
    assert.match(body.key.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(body.key.last_used_at, t.clock.now().toISOString());
    assert.deepEqual([...body.scopes].sort(), [
      'billing:read',
      'billing:write',
      'cells:read',
      'cells:write',
      'events:read',
      'messages:read',
      'messages:send',
      'usage:read',
      'webhooks:write',
    ]);
  });

  it('whoami reports the organization_name given at sign-up', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/agent/sign-up',
      payload: { email: `named-${Date.now()}@example.com`, organization_name: 'Acme Agents' },
    });
    assert.equal(response.statusCode, 201);
    const who = await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(response.json().api_key) });
    assert.equal(who.json().organization_name, 'Acme Agents');
  });

  it('sign-up answers 201 with the contract body', async () => {
    const email = `Shape-${Date.now()}@Example.com`;
    const response = await t.app.inject({ method: 'POST', url: '/v1/agent/sign-up', payload: { email } });
    assert.equal(response.statusCode, 201);
    const body = response.json();
    assert.deepEqual(Object.keys(body).sort(), ['api_key', 'organization_id', 'status', 'verification']);
    assert.equal(body.status, 'unverified');
    assert.deepEqual(body.verification, {
      channel: 'email',
      sent_to: email.toLowerCase(),
      expires_at: new Date(t.clock.now().getTime() + 600_000).toISOString(),
    });
  });

  it('creates a key shown once, lists it without the secret, and the new key works', async () => {
    const org = await activeOrganization(t);
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/keys',
      headers: org.headers,
      payload: { name: 'ci' },
    });
    assert.equal(created.statusCode, 201);
    const key = created.json();
    assert.match(key.api_key, /^cg_live_[0-9A-Za-z]{32}$/);
    assert.match(key.id, /^key_/);
    assert.equal(key.name, 'ci');
    assert.equal(key.prefix, key.api_key.slice(0, 12));
    assert.equal(key.last_used_at, null);

    const list = await t.app.inject({ url: '/v1/auth/keys', headers: org.headers });
    assert.equal(list.statusCode, 200);
    const body = list.json();
    assert.equal(body.keys.length, 2);
    assert.equal(body.keys[0].id, key.id, 'newest first');
    assert.equal(body.next_cursor, null);
    assert.ok(!list.body.includes(key.api_key), 'the secret is never listed');
    for (const k of body.keys)
      assert.deepEqual(Object.keys(k).sort(), ['created_at', 'id', 'last_used_at', 'name', 'prefix']);

    const who = await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(key.api_key) });
    assert.equal(who.json().key.id, key.id);
    const row = await t.database.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', key.id)
      .executeTakeFirstOrThrow();
    assert.ok(!JSON.stringify(row).includes(key.api_key), 'only a hash is stored');
  });

  it('creates a key without a body', async () => {
    const org = await activeOrganization(t);
    const created = await t.app.inject({ method: 'POST', url: '/v1/auth/keys', headers: org.headers });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().name, null);
  });

  it('rotates: create a new key, revoke the old one; the old key is 401 at once', async () => {
    const org = await activeOrganization(t);
    const fresh = (
      await t.app.inject({ method: 'POST', url: '/v1/auth/keys', headers: org.headers, payload: {} })
    ).json();
    const oldId = (await t.app.inject({ url: '/v1/auth/whoami', headers: org.headers })).json().key.id;

    const revoked = await t.app.inject({
      method: 'DELETE',
      url: `/v1/auth/keys/${oldId}`,
      headers: bearer(fresh.api_key),
    });
    assert.equal(revoked.statusCode, 204);
    assert.equal(revoked.body, '');

    const old = await t.app.inject({ url: '/v1/auth/whoami', headers: org.headers });
    expectProblem(old, 401, 'unauthenticated');
    assert.match(
      String(old.headers['www-authenticate']),
      /^Bearer resource_metadata="http:\/\/cellgate\.test\/\.well-known\/oauth-protected-resource"/,
    );
    const list = (await t.app.inject({ url: '/v1/auth/keys', headers: bearer(fresh.api_key) })).json();
    assert.deepEqual(
      list.keys.map((k: { id: string }) => k.id),
      [fresh.id],
    );
  });

  it('revoking the last active key is 409 conflict and the key keeps working', async () => {
    const org = await activeOrganization(t);
    const id = (await t.app.inject({ url: '/v1/auth/whoami', headers: org.headers })).json().key.id;
    expectProblem(
      await t.app.inject({ method: 'DELETE', url: `/v1/auth/keys/${id}`, headers: org.headers }),
      409,
      'conflict',
    );
    assert.equal((await t.app.inject({ url: '/v1/auth/whoami', headers: org.headers })).statusCode, 200);
  });

  it('a key may revoke itself while another stays active', async () => {
    const org = await activeOrganization(t);
    await t.app.inject({ method: 'POST', url: '/v1/auth/keys', headers: org.headers, payload: {} });
    const id = (await t.app.inject({ url: '/v1/auth/whoami', headers: org.headers })).json().key.id;
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/v1/auth/keys/${id}`, headers: org.headers })).statusCode,
      204,
    );
    expectProblem(await t.app.inject({ url: '/v1/auth/keys', headers: org.headers }), 401, 'unauthenticated');
  });

  it('revoking an unknown or already revoked key is 404', async () => {
    const org = await activeOrganization(t);
    const second = (
      await t.app.inject({ method: 'POST', url: '/v1/auth/keys', headers: org.headers, payload: {} })
    ).json();
    await t.app.inject({ method: 'DELETE', url: `/v1/auth/keys/${second.id}`, headers: org.headers });
    expectProblem(
      await t.app.inject({ method: 'DELETE', url: `/v1/auth/keys/${second.id}`, headers: org.headers }),
      404,
      'not_found',
    );
    expectProblem(
      await t.app.inject({ method: 'DELETE', url: '/v1/auth/keys/key_nope', headers: org.headers }),
      404,
      'not_found',
    );
  });

  it('pages through keys with limit and cursor, newest first, without repeats', async () => {
    const org = await activeOrganization(t);
    const ids: string[] = [(await t.app.inject({ url: '/v1/auth/whoami', headers: org.headers })).json().key.id];
    for (let i = 0; i < 4; i++) {
      t.clock.advance(1);
      ids.push(
        (
          await t.app.inject({ method: 'POST', url: '/v1/auth/keys', headers: org.headers, payload: { name: `k${i}` } })
        ).json().id,
      );
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url: string = `/v1/auth/keys?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const response = await t.app.inject({ url, headers: org.headers });
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.ok(body.keys.length <= 2);
      seen.push(...body.keys.map((k: { id: string }) => k.id));
      cursor = body.next_cursor;
      pages += 1;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen, [...ids].reverse());
  });

  it('accepts limit=1 and limit=200', async () => {
    const org = await activeOrganization(t);
    for (const limit of [1, 200]) {
      assert.equal((await t.app.inject({ url: `/v1/auth/keys?limit=${limit}`, headers: org.headers })).statusCode, 200);
    }
  });
});
