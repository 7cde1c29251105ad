import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeTime } from 'ulid';
import { activeOrganization, expectProblem, useApp } from '../../test/harness.ts';

describe('HTTP conventions', () => {
  const t = useApp({ env: { CELLGATE_DOCS_URL: 'https://docs.cellgate.test' } });

  it('errors are problem+json with type, title, status, detail, code and the request id', async () => {
    const response = await t.app.inject({ url: '/v1/auth/whoami' });
    assert.equal(response.statusCode, 401);
    assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
    const body = response.json();
    assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'request_id', 'status', 'title', 'type']);
    assert.equal(body.type, 'https://docs.cellgate.test/errors/unauthenticated');
    assert.equal(body.title, 'Unauthenticated');
    assert.equal(body.status, 401);
    assert.equal(body.code, 'unauthenticated');
    assert.ok(body.detail.length > 0);
    assert.equal(body.request_id, response.headers['x-request-id']);
  });

  it('validation errors carry errors[] with field, code and message', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/v1/agent/sign-up', payload: { email: 'x', nope: 1 } });
    const body = expectProblem(response, 400, 'invalid_request');
    assert.equal(body.type, 'https://docs.cellgate.test/errors/invalid_request');
    assert.deepEqual(
      body.errors.map((e: Record<string, string>) => Object.keys(e).sort()),
      [
        ['code', 'field', 'message'],
        ['code', 'field', 'message'],
      ],
    );
    assert.deepEqual(body.errors.map((e: Record<string, string>) => e.code).sort(), [
      'invalid_format',
      'unknown_field',
    ]);
  });

  it('echoes a valid incoming X-Request-Id in the header and the error body', async () => {
    const response = await t.app.inject({ url: '/v1/auth/whoami', headers: { 'x-request-id': 'client-trace_42.a:b' } });
    assert.equal(response.headers['x-request-id'], 'client-trace_42.a:b');
    assert.equal(response.json().request_id, 'client-trace_42.a:b');
  });

  for (const [label, id] of [
    ['too long', 'a'.repeat(129)],
    ['with spaces', 'has space'],
    ['with a newline-ish character', 'a\u0007b'],
    ['empty', ''],
  ] as const) {
    it(`generates a fresh request id when the incoming one is ${label}`, async () => {
      const response = await t.app.inject({ url: '/health', headers: { 'x-request-id': id } });
      assert.match(String(response.headers['x-request-id']), /^req_[0-9a-z]{26}$/);
    });
  }

  it('generates a distinct request id per request when none is sent', async () => {
    const a = await t.app.inject({ url: '/health' });
    const b = await t.app.inject({ url: '/health' });
    assert.match(String(a.headers['x-request-id']), /^req_/);
    assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id']);
  });

  it('a generated request id carries the time of the app clock', async () => {
    const response = await t.app.inject({ url: '/health' });
    const ulid = String(response.headers['x-request-id']).slice('req_'.length).toUpperCase();
    assert.equal(decodeTime(ulid), t.clock.now().getTime());
  });

  it('an unknown route is a 404 not_found problem with a request id', async () => {
    const response = await t.app.inject({ url: '/v1/nothing-here', headers: { 'x-request-id': 'probe-404' } });
    const body = expectProblem(response, 404, 'not_found');
    assert.equal(body.request_id, 'probe-404');
    assert.equal(response.headers['x-request-id'], 'probe-404');
    assert.equal(body.type, 'https://docs.cellgate.test/errors/not_found');
  });

  it('an unknown method on a known path is a problem+json, not an HTML page', async () => {
    const response = await t.app.inject({ method: 'PATCH', url: '/v1/auth/whoami' });
    assert.ok(response.statusCode === 404 || response.statusCode === 405);
    assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
    assert.ok(response.headers['x-request-id']);
  });

  it('an internal error says nothing more than internal_error and the request id', async () => {
    const org = await activeOrganization(t);
    const original = t.services.organizations.listKeys;
    t.services.organizations.listKeys = async () => {
      throw new Error('SELECT secret FROM api_keys failed at /work/main/src/x.ts:1');
    };
    try {
      const response = await t.app.inject({ url: '/v1/auth/keys', headers: org.headers });
      const body = expectProblem(response, 500, 'internal_error');
      assert.doesNotMatch(response.body, /SELECT|secret|\.ts|stack/);
      assert.equal(body.request_id, response.headers['x-request-id']);
    } finally {
      t.services.organizations.listKeys = original;
    }
  });

  it('success responses are JSON with charset utf-8 and carry X-Request-Id', async () => {
    const response = await t.app.inject({ url: '/health' });
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    assert.ok(response.headers['x-request-id']);
  });

  it('/docs/errors/<code> documents each error code the type URLs point to', async () => {
    const response = await t.app.inject({ url: '/docs/errors/rate_limited' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/html/);
    assert.match(response.body, /rate_limited/);
    expectProblem(
      await t.app.inject({ url: '/docs/errors/made_up', headers: { accept: 'application/json' } }),
      404,
      'not_found',
    );
  });
});
