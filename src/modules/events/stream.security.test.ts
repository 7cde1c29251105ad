import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, bearer, signUp, type TestApp } from '../../../test/harness.ts';
import { createCell } from '../../../test/support/cells.ts';
import { registerPublic, tokensFor } from '../../../test/support/oauth-client.ts';
import { rejected, StreamClient, withStream } from '../../../test/support/stream-client.ts';

async function secondKey(t: TestApp, headers: Record<string, string>): Promise<{ id: string; apiKey: string }> {
  const response = await t.app.inject({ method: 'POST', url: '/v1/auth/keys', headers, payload: {} });
  assert.equal(response.statusCode, 201, response.body);
  return { id: response.json().id, apiKey: response.json().api_key };
}

async function revoke(t: TestApp, headers: Record<string, string>, keyId: string) {
  const response = await t.app.inject({ method: 'DELETE', url: `/v1/auth/keys/${keyId}`, headers });
  assert.equal(response.statusCode, 204, response.body);
}

describe('event stream authentication', () => {
  let t: TestApp;
  let url: string;
  withStream(
    (app, streamAt) => {
      t = app;
      url = streamAt;
    },
    { deps: { eventStream: { pingIntervalMs: 1000 } } },
  );

  const cases: [string, { headers?: Record<string, string>; protocols?: string[] }][] = [
    ['no credential at all', {}],
    ['an Authorization header that is not Bearer', { headers: { authorization: 'Token cg_live_abc' } }],
    ['a Bearer header without a token', { headers: { authorization: 'Bearer ' } }],
    ['an unknown API key', { headers: bearer(`cg_live_${'x'.repeat(32)}`) }],
    ['an admin token', { headers: bearer('cg_adm_TestAdminToken0123456789') }],
    ['an unknown key as the subprotocol', { protocols: [`bearer.cg_live_${'y'.repeat(32)}`] }],
    ['an empty bearer. subprotocol', { protocols: ['bearer.'] }],
  ];
  for (const [label, options] of cases) {
    it(`closes with 4401 for ${label}, before any frame`, async () => {
      const closed = await rejected(url, options);
      assert.equal(closed.code, 4401);
      assert.ok(closed.reason.length > 0);
      assert.deepEqual(closed.frames, []);
    });
  }

  it('closes with 4401 for a revoked key', async () => {
    const org = await activeOrganization(t);
    const key = await secondKey(t, org.headers);
    await revoke(t, org.headers, key.id);
    const closed = await rejected(url, { headers: bearer(key.apiKey) });
    assert.equal(closed.code, 4401);
    assert.match(closed.reason, /unknown, revoked or expired/);
  });

  it('closes an open stream with 4401 at the next ping once its key is revoked', async () => {
    const org = await activeOrganization(t);
    const key = await secondKey(t, org.headers);
    const client = await StreamClient.ready(url, { headers: bearer(key.apiKey) });
    await revoke(t, org.headers, key.id);
    const closed = await client.closed;
    assert.equal(closed.code, 4401);
    assert.equal(t.services.events.feed.subscriberCount(), 0);
  });

  it('closes with 4403 for an organization that is not verified yet', async () => {
    const org = await signUp(t);
    const closed = await rejected(url, { headers: bearer(org.apiKey) });
    assert.equal(closed.code, 4403);
    assert.match(closed.reason, /Verify/);
  });

  it('closes with 4403 naming the scope for an access token without events:read (admission, as REST)', async () => {
    const org = await activeOrganization(t);
    const { client_id } = await registerPublic(t);
    const tokens = await tokensFor(t, org.headers, client_id, { scope: 'cells:read' });
    const closed = await rejected(url, { headers: bearer(tokens.access_token) });
    assert.equal(closed.code, 4403);
    assert.equal(closed.reason, 'The access token lacks the events:read scope.');
  });

  it("refuses another organization's event id as since (4400), without saying it exists", async () => {
    const a = await activeOrganization(t);
    const b = await activeOrganization(t);
    await createCell(t, b.headers);
    const row = await t.database.db
      .selectFrom('events')
      .select('id')
      .where('organization_id', '=', b.organizationId)
      .executeTakeFirstOrThrow();
    const closed = await rejected(`${url}?since=${row.id}`, { headers: a.headers });
    assert.equal(closed.code, 4400);
    assert.match(closed.reason, /not a retained event of this organization/);
  });
});
