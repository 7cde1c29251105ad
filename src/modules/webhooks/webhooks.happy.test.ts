import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, expectProblem, useApp } from '../../../test/harness.ts';

type Org = Awaited<ReturnType<typeof activeOrganization>>;

describe('webhook endpoints: create, read, update, delete, rotate', () => {
  const t = useApp();
  let org: Org;
  before(async () => {
    org = await activeOrganization(t);
  });

  const create = (payload: Record<string, unknown>, who: Org = org) =>
    t.app.inject({ method: 'POST', url: '/v1/webhooks', headers: who.headers, payload });

  it('creates a webhook and shows its secret once', async () => {
    const response = await create({ client_id: 'c-create', url: 'https://hooks.example.com/in', description: 'main' });
    assert.equal(response.statusCode, 201);
    const body = response.json();
    assert.match(body.id, /^whk_/);
    assert.match(body.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.equal(Buffer.from(body.secret.slice(6), 'base64').length, 24);
    assert.deepEqual(
      {
        client_id: body.client_id,
        url: body.url,
        event_types: body.event_types,
        enabled: body.enabled,
        description: body.description,
        disabled_reason: body.disabled_reason,
      },
      {
        client_id: 'c-create',
        url: 'https://hooks.example.com/in',
        event_types: ['*'],
        enabled: true,
        description: 'main',
        disabled_reason: null,
      },
    );
    assert.equal(body.created_at, t.clock.now().toISOString());

    const read = await t.app.inject({ url: `/v1/webhooks/${body.id}`, headers: org.headers });
    assert.equal(read.statusCode, 200);
    assert.equal(read.json().secret, undefined);
    assert.equal(read.json().url, body.url);
  });

  it('replays a create with the same client_id and body as 200 without the secret', async () => {
    const payload = {
      client_id: 'c-replay',
      url: 'https://hooks.example.com/r',
      event_types: ['message.*', 'cell.created'],
    };
    const first = await create(payload);
    assert.equal(first.statusCode, 201);
    // Field order does not matter; the body is the same.
    const again = await create({
      event_types: ['message.*', 'cell.created'],
      url: 'https://hooks.example.com/r',
      client_id: 'c-replay',
    });
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().id, first.json().id);
    assert.equal(again.json().secret, undefined);
    const list = await t.app.inject({ url: '/v1/webhooks', headers: org.headers });
    assert.equal(list.json().webhooks.filter((w: { client_id: string }) => w.client_id === 'c-replay').length, 1);
  });

  it('creates one webhook when the same create arrives twice at once', async () => {
    const payload = { client_id: 'c-race', url: 'https://hooks.example.com/race' };
    const responses = await Promise.all([create(payload), create(payload), create(payload)]);
    assert.deepEqual(responses.map((r) => r.statusCode).sort(), [200, 200, 201]);
    assert.equal(new Set(responses.map((r) => r.json().id)).size, 1);
    assert.equal(responses.filter((r) => r.json().secret).length, 1);
  });

  it('answers 409 client_id_conflict for the same client_id with another body', async () => {
    assert.equal((await create({ client_id: 'c-conflict', url: 'https://hooks.example.com/a' })).statusCode, 201);
    expectProblem(
      await create({ client_id: 'c-conflict', url: 'https://hooks.example.com/b' }),
      409,
      'client_id_conflict',
    );
    expectProblem(
      await create({ client_id: 'c-conflict', url: 'https://hooks.example.com/a', enabled: false }),
      409,
      'client_id_conflict',
    );
    // Stating a default explicitly is the same body.
    assert.equal(
      (await create({ client_id: 'c-conflict', url: 'https://hooks.example.com/a', enabled: true })).statusCode,
      200,
    );
  });

  it('keeps client_ids per organization', async () => {
    const other = await activeOrganization(t);
    assert.equal((await create({ client_id: 'c-shared', url: 'https://hooks.example.com/a' })).statusCode, 201);
    assert.equal((await create({ client_id: 'c-shared', url: 'https://hooks.example.com/a' }, other)).statusCode, 201);
  });

  it('lists newest first with cursor pagination', async () => {
    const fresh = await activeOrganization(t);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1);
      ids.push((await create({ client_id: `c-list-${i}`, url: 'https://hooks.example.com/l' }, fresh)).json().id);
    }
    const first = await t.app.inject({ url: '/v1/webhooks?limit=2', headers: fresh.headers });
    assert.deepEqual(
      first.json().webhooks.map((w: { id: string }) => w.id),
      [ids[2], ids[1]],
    );
    const second = await t.app.inject({
      url: `/v1/webhooks?limit=2&cursor=${first.json().next_cursor}`,
      headers: fresh.headers,
    });
    assert.deepEqual(
      second.json().webhooks.map((w: { id: string }) => w.id),
      [ids[0]],
    );
    assert.equal(second.json().next_cursor, null);
  });

  it('updates url, event types, description and enabled', async () => {
    const id = (await create({ client_id: 'c-patch', url: 'https://hooks.example.com/p' })).json().id;
    t.clock.advance(1000);
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/v1/webhooks/${id}`,
      headers: org.headers,
      payload: { url: 'https://hooks.example.com/q', event_types: ['cell.*'], description: null, enabled: false },
    });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.url, 'https://hooks.example.com/q');
    assert.deepEqual(body.event_types, ['cell.*']);
    assert.equal(body.description, null);
    assert.equal(body.enabled, false);
    assert.equal(body.updated_at, t.clock.now().toISOString());
    assert.notEqual(body.created_at, body.updated_at);
    const read = await t.app.inject({ url: `/v1/webhooks/${id}`, headers: org.headers });
    assert.deepEqual(read.json(), body);
  });

  it('deletes a webhook; its client_id stays taken', async () => {
    const payload = { client_id: 'c-delete', url: 'https://hooks.example.com/d' };
    const id = (await create(payload)).json().id;
    const deleted = await t.app.inject({ method: 'DELETE', url: `/v1/webhooks/${id}`, headers: org.headers });
    assert.equal(deleted.statusCode, 204);
    assert.equal(deleted.body, '');
    expectProblem(await t.app.inject({ url: `/v1/webhooks/${id}`, headers: org.headers }), 404, 'not_found');
    expectProblem(
      await t.app.inject({ method: 'DELETE', url: `/v1/webhooks/${id}`, headers: org.headers }),
      404,
      'not_found',
    );
    expectProblem(await create(payload), 409, 'client_id_conflict');
  });

  it('rotates the secret and shows the new one once', async () => {
    const created = (await create({ client_id: 'c-rotate', url: 'https://hooks.example.com/s' })).json();
    const rotated = await t.app.inject({
      method: 'POST',
      url: `/v1/webhooks/${created.id}/rotate-secret`,
      headers: org.headers,
    });
    assert.equal(rotated.statusCode, 200);
    const body = rotated.json();
    assert.match(body.secret, /^whsec_/);
    assert.notEqual(body.secret, created.secret);
    assert.equal(body.previous_secret_expires_at, new Date(t.clock.now().getTime() + 24 * 3600 * 1000).toISOString());
    assert.equal(body.id, created.id);
  });

  it("hides other organizations' webhooks (404)", async () => {
    const id = (await create({ client_id: 'c-private', url: 'https://hooks.example.com/x' })).json().id;
    const other = await activeOrganization(t);
    for (const [method, url, payload] of [
      ['GET', `/v1/webhooks/${id}`, undefined],
      ['PATCH', `/v1/webhooks/${id}`, { enabled: false }],
      ['DELETE', `/v1/webhooks/${id}`, undefined],
      ['POST', `/v1/webhooks/${id}/rotate-secret`, undefined],
      ['GET', `/v1/webhooks/${id}/deliveries`, undefined],
    ] as const) {
      expectProblem(await t.app.inject({ method, url, headers: other.headers, payload }), 404, 'not_found');
    }
    const list = await t.app.inject({ url: '/v1/webhooks', headers: other.headers });
    assert.deepEqual(list.json().webhooks, []);
    assert.equal((await t.app.inject({ url: `/v1/webhooks/${id}`, headers: org.headers })).json().enabled, true);
  });
});
