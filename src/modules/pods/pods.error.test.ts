import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, useApp } from '../../../test/harness.ts';
import { call, clientId, lines, ok } from '../../../test/support/pods.ts';

describe('pods: bad input', () => {
  const t = useApp();

  const podCount = async (org: Parameters<typeof ok>[1]) => (await ok(t, org, 'GET', '/v1/pods')).pods.length;

  it('refuses unknown, foreign and released cells with 400, naming each by its index, and creates nothing', async () => {
    const [mine, released] = await lines(t, 2);
    const [foreign] = await lines(t, 1);
    await ok(t, mine.org, 'DELETE', `/v1/cells/${released.cell.id}`);
    const cellIds = [mine.cell.id, 'cell_01jdx2b7c8d9e0f1g2h3j4k5m6', foreign.cell.id, released.cell.id];
    const body = expectProblem(
      await call(t, mine.org, 'POST', '/v1/pods', { name: 'Bad', client_id: clientId(), cell_ids: cellIds }),
      400,
      'invalid_request',
    );
    assert.deepEqual(
      body.errors.map((e: { field: string; code: string }) => [e.field, e.code]),
      [
        ['cell_ids.1', 'not_found'],
        ['cell_ids.2', 'not_found'],
        ['cell_ids.3', 'not_found'],
      ],
    );
    assert.equal(await podCount(mine.org), 0);
    assert.equal((await ok(t, mine.org, 'GET', `/v1/cells/${mine.cell.id}`)).pod_id, null);
    assert.equal((await ok(t, foreign.org, 'GET', `/v1/cells/${foreign.cell.id}`)).pod_id, null);
  });

  it('refuses a foreign cell on PATCH too, leaving the pod as it was', async () => {
    const [mine] = await lines(t, 1);
    const [foreign] = await lines(t, 1);
    const pod = await ok(
      t,
      mine.org,
      'POST',
      '/v1/pods',
      { name: 'Mine', client_id: clientId(), cell_ids: [mine.cell.id] },
      201,
    );
    const body = expectProblem(
      await call(t, mine.org, 'PATCH', `/v1/pods/${pod.id}`, { name: 'Changed', cell_ids: [foreign.cell.id] }),
      400,
      'invalid_request',
    );
    assert.equal(body.errors[0].field, 'cell_ids.0');
    assert.deepEqual(await ok(t, mine.org, 'GET', `/v1/pods/${pod.id}`), pod);
  });

  it('refuses a cell that is in another pod with 409 cell_in_pod, on create and on PATCH', async () => {
    const [a, b] = await lines(t, 2);
    const first = await ok(
      t,
      a.org,
      'POST',
      '/v1/pods',
      { name: 'First', client_id: clientId(), cell_ids: [a.cell.id] },
      201,
    );
    expectProblem(
      await call(t, a.org, 'POST', '/v1/pods', {
        name: 'Second',
        client_id: clientId(),
        cell_ids: [b.cell.id, a.cell.id],
      }),
      409,
      'cell_in_pod',
    );
    assert.equal(await podCount(a.org), 1);
    assert.equal(
      (await ok(t, a.org, 'GET', `/v1/cells/${b.cell.id}`)).pod_id,
      null,
      'nothing of the refused create was kept',
    );
    const second = await ok(
      t,
      a.org,
      'POST',
      '/v1/pods',
      { name: 'Second', client_id: clientId(), cell_ids: [b.cell.id] },
      201,
    );
    expectProblem(
      await call(t, a.org, 'PATCH', `/v1/pods/${second.id}`, { cell_ids: [b.cell.id, a.cell.id] }),
      409,
      'cell_in_pod',
    );
    assert.deepEqual((await ok(t, a.org, 'GET', `/v1/pods/${first.id}`)).cell_ids, [a.cell.id]);
    assert.deepEqual((await ok(t, a.org, 'GET', `/v1/pods/${second.id}`)).cell_ids, [b.cell.id]);
  });

  for (const [label, name, code] of [
    ['empty', '', 'too_short'],
    ['over 100 characters', 'x'.repeat(101), 'too_long'],
    ['only spaces', '   ', 'invalid_format'],
  ] as const) {
    it(`refuses a pod name that is ${label} (400 ${code})`, async () => {
      const [line] = await lines(t, 1);
      const body = expectProblem(
        await call(t, line.org, 'POST', '/v1/pods', { name, client_id: clientId() }),
        400,
        'invalid_request',
      );
      assert.ok(
        body.errors.some((e: { field: string; code: string }) => e.field === 'name' && e.code === code),
        JSON.stringify(body.errors),
      );
      assert.equal(await podCount(line.org), 0);
      const pod = await ok(t, line.org, 'POST', '/v1/pods', { name: 'Fine', client_id: clientId() }, 201);
      expectProblem(await call(t, line.org, 'PATCH', `/v1/pods/${pod.id}`, { name }), 400, 'invalid_request');
    });
  }

  it('accepts a name of exactly 100 characters', async () => {
    const [line] = await lines(t, 1);
    assert.equal(
      (await ok(t, line.org, 'POST', '/v1/pods', { name: 'x'.repeat(100), client_id: clientId() }, 201)).name.length,
      100,
    );
  });

  it('requires client_id and refuses unknown fields', async () => {
    const [line] = await lines(t, 1);
    const missing = expectProblem(
      await call(t, line.org, 'POST', '/v1/pods', { name: 'No id' }),
      400,
      'invalid_request',
    );
    assert.deepEqual(
      missing.errors.map((e: { field: string; code: string }) => [e.field, e.code]),
      [['client_id', 'required']],
    );
    const unknown = expectProblem(
      await call(t, line.org, 'POST', '/v1/pods', { name: 'Extra', client_id: clientId(), color: 'red' }),
      400,
      'invalid_request',
    );
    assert.deepEqual(
      unknown.errors.map((e: { field: string; code: string }) => [e.field, e.code]),
      [['color', 'unknown_field']],
    );
  });

  it('answers a client_id repeated with another body with 409 client_id_conflict, also after the pod was deleted', async () => {
    const [a, b] = await lines(t, 2);
    const id = clientId();
    const pod = await ok(t, a.org, 'POST', '/v1/pods', { name: 'Original', client_id: id, cell_ids: [a.cell.id] }, 201);
    expectProblem(
      await call(t, a.org, 'POST', '/v1/pods', { name: 'Other name', client_id: id, cell_ids: [a.cell.id] }),
      409,
      'client_id_conflict',
    );
    expectProblem(
      await call(t, a.org, 'POST', '/v1/pods', { name: 'Original', client_id: id, cell_ids: [a.cell.id, b.cell.id] }),
      409,
      'client_id_conflict',
    );
    await ok(t, a.org, 'DELETE', `/v1/pods/${pod.id}`, undefined, 204);
    expectProblem(
      await call(t, a.org, 'POST', '/v1/pods', { name: 'Original', client_id: id, cell_ids: [a.cell.id] }),
      409,
      'client_id_conflict',
    );
    assert.equal(await podCount(a.org), 0);
  });

  it('lets two organizations use the same client_id', async () => {
    const [a] = await lines(t, 1);
    const [b] = await lines(t, 1);
    const id = clientId();
    await ok(t, a.org, 'POST', '/v1/pods', { name: 'Same', client_id: id }, 201);
    await ok(t, b.org, 'POST', '/v1/pods', { name: 'Same', client_id: id }, 201);
  });

  it('refuses a page size out of range and a forged cursor', async () => {
    const [line] = await lines(t, 1);
    expectProblem(await call(t, line.org, 'GET', '/v1/pods?limit=0'), 400, 'invalid_request');
    expectProblem(await call(t, line.org, 'GET', '/v1/pods?limit=201'), 400, 'invalid_request');
    expectProblem(await call(t, line.org, 'GET', '/v1/pods?cursor=nonsense'), 400, 'invalid_request');
  });
});
