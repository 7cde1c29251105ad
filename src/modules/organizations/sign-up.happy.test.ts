import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, bearer, signUp, useApp } from '../../../test/harness.ts';

describe('sign-up, verify, whoami', () => {
  const t = useApp();

  it('signs up an unverified organization and mails a 6-digit code', async () => {
    const org = await signUp(t);
    assert.match(org.apiKey, /^cg_live_[0-9A-Za-z]{32}$/);
    assert.match(org.organizationId, /^org_/);
    assert.match(org.code, /^\d{6}$/);
    const who = await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(org.apiKey) });
    assert.equal(who.statusCode, 200);
    assert.equal(who.json().status, 'unverified');
  });

  it('verifies with the mailed code and whoami reports active', async () => {
    const org = await activeOrganization(t);
    const who = await t.app.inject({ url: '/v1/auth/whoami', headers: org.headers });
    assert.equal(who.statusCode, 200);
    const body = who.json();
    assert.equal(body.organization_id, org.organizationId);
    assert.equal(body.status, 'active');
    assert.equal(body.credential_type, 'api_key');
    assert.ok(body.scopes.includes('messages:send'));
    assert.equal(body.key.prefix, org.apiKey.slice(0, 12));
  });
});
