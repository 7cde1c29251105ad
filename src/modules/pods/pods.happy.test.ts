import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from '../../../test/harness.ts';
import { eventsOf } from '../../../test/support/cells.ts';
import { clientId, lines, ok } from '../../../test/support/pods.ts';

describe('pods', () => {
  const t = useApp();

  it('creates a pod (201) in the contract shape, and its cells carry its pod_id', async () => {
    const [a, b] = await lines(t, 2);
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/pods',
      headers: a.org.headers,
      payload: { name: 'Outreach', client_id: clientId(), cell_ids: [b.cell.id, a.cell.id] },
    });
    assert.equal(response.statusCode, 201);
    const pod = response.json();
    assert.deepEqual(Object.keys(pod).sort(), [
      'cell_ids',
      'client_id',
      'created_at',
      'id',
      'name',
      'quiet_hours',
      'updated_at',
    ]);
    assert.match(pod.id, /^pod_[0-9a-z]{26}$/);
    assert.deepEqual(pod.cell_ids, [a.cell.id, b.cell.id]);
    assert.equal(pod.created_at, t.clock.now().toISOString());
    for (const line of [a, b]) assert.equal((await ok(t, a.org, 'GET', `/v1/cells/${line.cell.id}`)).pod_id, pod.id);
    const updates = (await eventsOf(t, 'cell.updated')).filter((e) => e.data.pod_id === pod.id);
    assert.deepEqual(updates.map((e) => e.data.id).sort(), [a.cell.id, b.cell.id].sort());
  });

  it('answers a repeated create with the same body (cell ids in any order) with 200 and the same pod', async () => {
    const [a, b] = await lines(t, 2);
    const body = { name: 'Twins', client_id: clientId(), cell_ids: [a.cell.id, b.cell.id] };
    const first = await ok(t, a.org, 'POST', '/v1/pods', body, 201);
    const again = await ok(t, a.org, 'POST', '/v1/pods', { ...body, cell_ids: [b.cell.id, a.cell.id] }, 200);
    assert.deepEqual(again, first);
    assert.equal((await ok(t, a.org, 'GET', '/v1/pods')).pods.length, 1);
  });

  it('creates an empty pod, reads it, and lists pods newest first with a cursor', async () => {
    const [line] = await lines(t, 1);
    const created = [];
    for (const name of ['one', 'two', 'three'])
      created.push(await ok(t, line.org, 'POST', '/v1/pods', { name, client_id: clientId() }, 201));
    assert.deepEqual(created[0].cell_ids, []);
    assert.deepEqual(await ok(t, line.org, 'GET', `/v1/pods/${created[1].id}`), created[1]);
    const first = await ok(t, line.org, 'GET', '/v1/pods?limit=2');
    assert.deepEqual(
      first.pods.map((p: { name: string }) => p.name),
      ['three', 'two'],
    );
    const second = await ok(t, line.org, 'GET', `/v1/pods?limit=2&cursor=${first.next_cursor}`);
    assert.deepEqual(
      second.pods.map((p: { name: string }) => p.name),
      ['one'],
    );
    assert.equal(second.next_cursor, null);
  });

  it('renames a pod and replaces its cells: cells left out leave it, new ones join', async () => {
    const [a, b, c] = await lines(t, 3);
    const pod = await ok(
      t,
      a.org,
      'POST',
      '/v1/pods',
      { name: 'Before', client_id: clientId(), cell_ids: [a.cell.id, b.cell.id] },
      201,
    );
    t.clock.advance(1000);
    const updated = await ok(t, a.org, 'PATCH', `/v1/pods/${pod.id}`, {
      name: 'After',
      cell_ids: [b.cell.id, c.cell.id],
    });
    assert.equal(updated.name, 'After');
    assert.deepEqual(updated.cell_ids, [b.cell.id, c.cell.id]);
    assert.equal(updated.updated_at, t.clock.now().toISOString());
    assert.equal((await ok(t, a.org, 'GET', `/v1/cells/${a.cell.id}`)).pod_id, null);
    assert.equal((await ok(t, a.org, 'GET', `/v1/cells/${c.cell.id}`)).pod_id, pod.id);
    assert.deepEqual((await ok(t, a.org, 'PATCH', `/v1/pods/${pod.id}`, { name: 'Renamed only' })).cell_ids, [
      b.cell.id,
      c.cell.id,
    ]);
  });

  it('deletes a pod (204): its cells are free for another pod, and later reads are 404', async () => {
    const [a, b] = await lines(t, 2);
    const pod = await ok(
      t,
      a.org,
      'POST',
      '/v1/pods',
      { name: 'Short-lived', client_id: clientId(), cell_ids: [a.cell.id, b.cell.id] },
      201,
    );
    await ok(t, a.org, 'DELETE', `/v1/pods/${pod.id}`, undefined, 204);
    assert.equal((await t.app.inject({ url: `/v1/pods/${pod.id}`, headers: a.org.headers })).statusCode, 404);
    assert.equal((await ok(t, a.org, 'GET', `/v1/cells/${a.cell.id}`)).pod_id, null);
    const next = await ok(
      t,
      a.org,
      'POST',
      '/v1/pods',
      { name: 'Next', client_id: clientId(), cell_ids: [a.cell.id, b.cell.id] },
      201,
    );
    assert.deepEqual(next.cell_ids, [a.cell.id, b.cell.id]);
  });

  it('releasing a cell takes it out of its pod', async () => {
    const [a, b] = await lines(t, 2);
    const pod = await ok(
      t,
      a.org,
      'POST',
      '/v1/pods',
      { name: 'Pair', client_id: clientId(), cell_ids: [a.cell.id, b.cell.id] },
      201,
    );
    await ok(t, a.org, 'DELETE', `/v1/cells/${a.cell.id}`);
    assert.deepEqual((await ok(t, a.org, 'GET', `/v1/pods/${pod.id}`)).cell_ids, [b.cell.id]);
  });
});
