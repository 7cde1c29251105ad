import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, expectProblem, useApp } from '../../../test/harness.ts';
import { createCell, eventsOf } from '../../../test/support/cells.ts';

const UNKNOWN_CELL = 'cell_01jzzzzzzzzzzzzzzzzzzzzzzz';

const BAD_DISPLAY_NAMES = [
  ['a missing display_name', {}, 'display_name', 'required'],
  ['an empty display_name', { display_name: '' }, 'display_name', 'too_short'],
  ['a 101-character display_name', { display_name: 'x'.repeat(101) }, 'display_name', 'too_long'],
  ['a display_name of spaces', { display_name: '   ' }, 'display_name', 'invalid_format'],
  ['a numeric display_name', { display_name: 42 }, 'display_name', 'invalid_type'],
  ['a null display_name', { display_name: null }, 'display_name', 'invalid_type'],
] as const;

function expectFieldError(body: { errors: { field: string; code: string }[] }, field: string, code: string) {
  assert.ok(
    body.errors.some((e) => e.field === field && e.code === code),
    `expected ${field}/${code} in ${JSON.stringify(body.errors)}`,
  );
}

describe('cells: bad input', () => {
  let org: Awaited<ReturnType<typeof activeOrganization>>;
  const t = useApp();
  before(async () => {
    org = await activeOrganization(t);
  });

  const create = (payload: unknown) =>
    t.app.inject({ method: 'POST', url: '/v1/cells', headers: org.headers, payload: payload as object });

  it('client_id on create is 400 unknown_field', async () => {
    const body = expectProblem(await create({ display_name: 'x', client_id: 'abc' }), 400, 'invalid_request');
    expectFieldError(body, 'client_id', 'unknown_field');
  });

  it('any other field on create is 400 unknown_field', async () => {
    for (const extra of [{ phone_number: '+14155552671' }, { status: 'active' }, { pod_id: 'pod_x' }]) {
      const body = expectProblem(await create({ display_name: 'x', ...extra }), 400, 'invalid_request');
      expectFieldError(body, Object.keys(extra)[0], 'unknown_field');
    }
  });

  for (const [label, payload, field, code] of BAD_DISPLAY_NAMES) {
    it(`create rejects ${label}`, async () => {
      expectFieldError(expectProblem(await create(payload), 400, 'invalid_request'), field, code);
    });
  }

  it('accepts display_name of exactly 100 characters', async () => {
    assert.equal((await create({ display_name: 'x'.repeat(100) })).statusCode, 201);
  });

  it('a body that is not a JSON object is 400', async () => {
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/cells',
        headers: { ...org.headers, 'content-type': 'application/json' },
        payload: '[1]',
      }),
      400,
      'invalid_request',
    );
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/cells',
        headers: { ...org.headers, 'content-type': 'application/json' },
        payload: '{"display_name":',
      }),
      400,
      'invalid_request',
    );
    expectProblem(
      await t.app.inject({ method: 'POST', url: '/v1/cells', headers: org.headers }),
      400,
      'invalid_request',
    );
  });

  it('no rejected create wrote a cell or an event', async () => {
    const cells = await t.database.db.selectFrom('cells').select('display_name').execute();
    assert.deepEqual(
      cells.map((c) => c.display_name),
      ['x'.repeat(100)],
    );
    assert.equal((await eventsOf(t, 'cell.created')).length, 1);
  });

  for (const [label, payload, field, code] of BAD_DISPLAY_NAMES) {
    it(`PATCH rejects ${label} and changes nothing`, async () => {
      const cell = await createCell(t, org.headers, 'kept');
      const response = await t.app.inject({
        method: 'PATCH',
        url: `/v1/cells/${cell.id}`,
        headers: org.headers,
        payload: payload as object,
      });
      expectFieldError(expectProblem(response, 400, 'invalid_request'), field, code);
      assert.equal(
        (await t.app.inject({ url: `/v1/cells/${cell.id}`, headers: org.headers })).json().display_name,
        'kept',
      );
    });
  }

  it('PATCH of anything but display_name is 400 unknown_field', async () => {
    const cell = await createCell(t, org.headers);
    for (const payload of [
      { display_name: 'x', status: 'released' },
      { phone_number: '+14155552671' },
      { pod_id: null },
    ]) {
      const body = expectProblem(
        await t.app.inject({ method: 'PATCH', url: `/v1/cells/${cell.id}`, headers: org.headers, payload }),
        400,
        'invalid_request',
      );
      assert.ok(body.errors.some((e: { code: string }) => e.code === 'unknown_field'));
    }
  });

  it('an unknown cell is 404 on read, patch and delete', async () => {
    const url = `/v1/cells/${UNKNOWN_CELL}`;
    expectProblem(await t.app.inject({ url, headers: org.headers }), 404, 'not_found');
    expectProblem(
      await t.app.inject({ method: 'PATCH', url, headers: org.headers, payload: { display_name: 'x' } }),
      404,
      'not_found',
    );
    expectProblem(await t.app.inject({ method: 'DELETE', url, headers: org.headers }), 404, 'not_found');
    expectProblem(await t.app.inject({ url: '/v1/cells/not-an-id', headers: org.headers }), 404, 'not_found');
  });

  it('a released cell is 404 on read, patch and a second delete', async () => {
    const cell = await createCell(t, org.headers);
    const url = `/v1/cells/${cell.id}`;
    assert.equal((await t.app.inject({ method: 'DELETE', url, headers: org.headers })).statusCode, 200);
    expectProblem(await t.app.inject({ url, headers: org.headers }), 404, 'not_found');
    expectProblem(
      await t.app.inject({ method: 'PATCH', url, headers: org.headers, payload: { display_name: 'x' } }),
      404,
      'not_found',
    );
    expectProblem(await t.app.inject({ method: 'DELETE', url, headers: org.headers }), 404, 'not_found');
    assert.equal((await eventsOf(t, 'cell.deleted')).length, 1, 'released once');
  });

  it('concurrent deletes of one cell: one 200, the other 404', async () => {
    const cell = await createCell(t, org.headers);
    const url = `/v1/cells/${cell.id}`;
    const responses = await Promise.all(
      [1, 2].map(() => t.app.inject({ method: 'DELETE', url, headers: org.headers })),
    );
    assert.deepEqual(responses.map((r) => r.statusCode).sort(), [200, 404]);
  });

  it('list rejects a bad status filter, limit and cursor', async () => {
    for (const query of ['status=released', 'status=bogus', 'limit=0', 'limit=201', 'limit=abc', 'cursor=garbage']) {
      expectProblem(await t.app.inject({ url: `/v1/cells?${query}`, headers: org.headers }), 400, 'invalid_request');
    }
  });
});
