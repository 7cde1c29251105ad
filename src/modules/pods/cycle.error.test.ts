import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, useApp } from '../../../test/harness.ts';
import { call, clientId, createPod, lines, ok, podWithLines, recipients, runJob } from '../../../test/support/pods.ts';

const fields = (body: { errors: { field: string; code: string }[] }) => body.errors.map((e) => [e.field, e.code]);

describe('cycle jobs: bad input', () => {
  const t = useApp();

  const jobCount = async (org: Parameters<typeof ok>[1], podId: string) =>
    (await ok(t, org, 'GET', `/v1/pods/${podId}/jobs`)).jobs.length;

  it('refuses a ring on a pod with fewer than two active cells (409 conflict)', async () => {
    const [a, b] = await lines(t, 2);
    const single = await createPod(t, a.org, [a.cell.id]);
    expectProblem(
      await call(t, a.org, 'POST', `/v1/pods/${single.id}/messages/cycle`, { mode: 'ring' }),
      409,
      'conflict',
    );
    const empty = await createPod(t, a.org, []);
    expectProblem(
      await call(t, a.org, 'POST', `/v1/pods/${empty.id}/messages/cycle`, { mode: 'ring' }),
      409,
      'conflict',
    );
    // Two cells, one released: one active cell left.
    const pair = await ok(t, a.org, 'PATCH', `/v1/pods/${single.id}`, { cell_ids: [a.cell.id, b.cell.id] });
    await ok(t, a.org, 'DELETE', `/v1/cells/${b.cell.id}`);
    expectProblem(
      await call(t, a.org, 'POST', `/v1/pods/${pair.id}/messages/cycle`, { mode: 'ring' }),
      409,
      'conflict',
    );
    assert.equal(await jobCount(a.org, single.id), 0);
  });

  it('refuses a broadcast on a pod without an active cell (409 conflict)', async () => {
    const [line] = await lines(t, 1);
    const empty = await createPod(t, line.org, []);
    expectProblem(
      await call(t, line.org, 'POST', `/v1/pods/${empty.id}/messages/cycle`, {
        mode: 'broadcast',
        body: 'x',
        to: ['+14155550101'],
      }),
      409,
      'conflict',
    );
  });

  it('refuses a broadcast with neither to nor list_id, or with both', async () => {
    const { org, pod } = await podWithLines(t, 1);
    const url = `/v1/pods/${pod.id}/messages/cycle`;
    assert.deepEqual(
      fields(expectProblem(await call(t, org, 'POST', url, { mode: 'broadcast', body: 'x' }), 400, 'invalid_request')),
      [['to', 'required']],
    );
    const list = await ok(t, org, 'POST', `/v1/pods/${pod.id}/lists`, { name: 'l', numbers: ['+14155550101'] }, 201);
    const both = expectProblem(
      await call(t, org, 'POST', url, { mode: 'broadcast', body: 'x', to: ['+14155550101'], list_id: list.id }),
      400,
      'invalid_request',
    );
    assert.deepEqual(fields(both), [['list_id', 'invalid_value']]);
    assert.equal(await jobCount(org, pod.id), 0);
  });

  it('refuses an empty to and one of 10,001 numbers', async () => {
    const { org, pod } = await podWithLines(t, 1);
    const url = `/v1/pods/${pod.id}/messages/cycle`;
    assert.deepEqual(
      fields(
        expectProblem(
          await call(t, org, 'POST', url, { mode: 'broadcast', body: 'x', to: [] }),
          400,
          'invalid_request',
        ),
      ),
      [['to', 'too_few']],
    );
    assert.deepEqual(
      fields(
        expectProblem(
          await call(t, org, 'POST', url, { mode: 'broadcast', body: 'x', to: recipients(10_001) }),
          400,
          'invalid_request',
        ),
      ),
      [['to', 'too_many']],
    );
    assert.equal(await jobCount(org, pod.id), 0);
  });

  it('accepts exactly 10,000 numbers', async () => {
    const { org, pod } = await podWithLines(t, 1);
    const job = await ok(
      t,
      org,
      'POST',
      `/v1/pods/${pod.id}/messages/cycle`,
      { mode: 'broadcast', body: 'x', to: recipients(10_000) },
      202,
    );
    assert.equal(job.counts.total, 10_000);
    await ok(t, org, 'POST', `/v1/pods/${pod.id}/jobs/${job.id}/cancel`);
  });

  it('reports malformed numbers of to by their index, starting nothing', async () => {
    const { org, pod } = await podWithLines(t, 1);
    const body = expectProblem(
      await call(t, org, 'POST', `/v1/pods/${pod.id}/messages/cycle`, {
        mode: 'broadcast',
        body: 'x',
        to: ['+14155550101', 'nope', '+1415'],
      }),
      400,
      'invalid_request',
    );
    assert.deepEqual(fields(body), [
      ['to.1', 'invalid_phone_number'],
      ['to.2', 'invalid_phone_number'],
    ]);
    assert.equal(await jobCount(org, pod.id), 0);
  });

  it('refuses a list_id of another organization, an unknown one, and an empty list', async () => {
    const { org, pod } = await podWithLines(t, 1);
    const [stranger] = await lines(t, 1);
    const theirs = await ok(
      t,
      stranger.org,
      'POST',
      `/v1/cells/${stranger.cell.id}/lists`,
      { name: 'theirs', numbers: ['+14155550101'] },
      201,
    );
    const url = `/v1/pods/${pod.id}/messages/cycle`;
    for (const listId of [theirs.id, 'lst_01jdx3e6f7g8h9j0k1m2n3p4q5']) {
      assert.deepEqual(
        fields(
          expectProblem(
            await call(t, org, 'POST', url, { mode: 'broadcast', body: 'x', list_id: listId }),
            400,
            'invalid_request',
          ),
        ),
        [['list_id', 'not_found']],
      );
    }
    const empty = await ok(t, org, 'POST', `/v1/pods/${pod.id}/lists`, { name: 'empty' }, 201);
    assert.deepEqual(
      fields(
        expectProblem(
          await call(t, org, 'POST', url, { mode: 'broadcast', body: 'x', list_id: empty.id }),
          400,
          'invalid_request',
        ),
      ),
      [['list_id', 'too_few']],
    );
    assert.equal(await jobCount(org, pod.id), 0);
  });

  it('refuses a broadcast without a body, a ring with recipients, and an unknown mode', async () => {
    const { org, pod } = await podWithLines(t, 2);
    const url = `/v1/pods/${pod.id}/messages/cycle`;
    assert.deepEqual(
      fields(
        expectProblem(
          await call(t, org, 'POST', url, { mode: 'broadcast', to: ['+14155550101'] }),
          400,
          'invalid_request',
        ),
      ),
      [['body', 'required']],
    );
    assert.deepEqual(
      fields(
        expectProblem(await call(t, org, 'POST', url, { mode: 'ring', to: ['+14155550101'] }), 400, 'invalid_request'),
      ),
      [['to', 'invalid_value']],
    );
    expectProblem(await call(t, org, 'POST', url, { mode: 'spiral' }), 400, 'invalid_request');
    expectProblem(await call(t, org, 'POST', url, { mode: 'ring', body: '' }), 400, 'invalid_request');
  });

  it('answers a client_id repeated with another body with 409 client_id_conflict', async () => {
    const { org, pod } = await podWithLines(t, 2);
    const url = `/v1/pods/${pod.id}/messages/cycle`;
    const id = clientId('job');
    await ok(t, org, 'POST', url, { mode: 'ring', client_id: id }, 202);
    expectProblem(
      await call(t, org, 'POST', url, { mode: 'ring', body: 'different', client_id: id }),
      409,
      'client_id_conflict',
    );
    const other = await createPod(t, org, []);
    expectProblem(
      await call(t, org, 'POST', `/v1/pods/${other.id}/messages/cycle`, { mode: 'ring', client_id: id }),
      409,
      'client_id_conflict',
    );
    assert.equal(await jobCount(org, pod.id), 1);
  });

  it('answers an Idempotency-Key reused with another body with 422', async () => {
    const { org, pod } = await podWithLines(t, 2);
    const url = `/v1/pods/${pod.id}/messages/cycle`;
    await ok(t, org, 'POST', url, { mode: 'ring' }, 202, { 'idempotency-key': 'cycle-key' });
    expectProblem(
      await call(t, org, 'POST', url, { mode: 'ring', body: 'other' }, { 'idempotency-key': 'cycle-key' }),
      422,
      'idempotency_key_reused',
    );
  });

  it('refuses to cancel a job that ended (409 conflict)', async () => {
    const { org, pod } = await podWithLines(t, 2);
    const job = await ok(t, org, 'POST', `/v1/pods/${pod.id}/messages/cycle`, { mode: 'ring' }, 202);
    await ok(t, org, 'POST', `/v1/pods/${pod.id}/jobs/${job.id}/cancel`);
    expectProblem(await call(t, org, 'POST', `/v1/pods/${pod.id}/jobs/${job.id}/cancel`), 409, 'conflict');
    const done = await runJob(t, org, pod.id, job.id);
    assert.equal(done.status, 'canceled');
  });
});
