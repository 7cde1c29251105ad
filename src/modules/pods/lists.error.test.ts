import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, useApp } from '../../../test/harness.ts';
import { call, createPod, lines, ok, recipients } from '../../../test/support/pods.ts';

const fields = (body: { errors: { field: string; code: string }[] }) => body.errors.map((e) => [e.field, e.code]);

describe('contact lists: bad input', () => {
  const t = useApp();

  const cellList = async () => {
    const [line] = await lines(t, 1);
    return { org: line.org, base: `/v1/cells/${line.cell.id}/lists` };
  };

  it('reports malformed numbers by their index on create and writes nothing', async () => {
    const { org, base } = await cellList();
    const body = expectProblem(
      await call(t, org, 'POST', base, {
        name: 'Bad',
        numbers: ['+14155550101', '415-555-0102', '+1415555010', 'hello'],
      }),
      400,
      'invalid_request',
    );
    assert.deepEqual(fields(body), [
      ['numbers.1', 'invalid_phone_number'],
      ['numbers.2', 'invalid_phone_number'],
      ['numbers.3', 'invalid_phone_number'],
    ]);
    assert.deepEqual((await ok(t, org, 'GET', base)).lists, []);
  });

  it('reports a malformed number by its index on add and remove, leaving the list unchanged', async () => {
    const { org, base } = await cellList();
    const list = await ok(t, org, 'POST', base, { name: 'Kept', numbers: ['+14155550101', '+14155550102'] }, 201);
    const added = expectProblem(
      await call(t, org, 'POST', `${base}/${list.id}/numbers`, { numbers: ['+14155550103', 'not a number'] }),
      400,
      'invalid_request',
    );
    assert.deepEqual(fields(added), [['numbers.1', 'invalid_phone_number']]);
    const removed = expectProblem(
      await call(t, org, 'POST', `${base}/${list.id}/numbers/remove`, { numbers: ['+14155550101', '12'] }),
      400,
      'invalid_request',
    );
    assert.deepEqual(fields(removed), [['numbers.1', 'invalid_phone_number']]);
    assert.deepEqual(await ok(t, org, 'GET', `${base}/${list.id}`), list);
  });

  it('reports at most 100 bad numbers of a long list, and says how many there were', async () => {
    const { org, base } = await cellList();
    const body = expectProblem(
      await call(t, org, 'POST', base, { name: 'Junk', numbers: Array.from({ length: 150 }, (_, i) => `junk-${i}`) }),
      400,
      'invalid_request',
    );
    assert.equal(body.errors.length, 100);
    assert.match(body.detail, /150 numbers/);
  });

  it('refuses more than 10,000 numbers on create (schema) and an add that would pass 10,000, writing nothing', async () => {
    const { org, base } = await cellList();
    const tooMany = expectProblem(
      await call(t, org, 'POST', base, { name: 'Huge', numbers: recipients(10_001) }),
      400,
      'invalid_request',
    );
    assert.deepEqual(fields(tooMany), [['numbers', 'too_many']]);
    const list = await ok(t, org, 'POST', base, { name: 'Full', numbers: recipients(10_000) }, 201);
    const over = expectProblem(
      await call(t, org, 'POST', `${base}/${list.id}/numbers`, { numbers: ['+14155550101'] }),
      400,
      'invalid_request',
    );
    assert.deepEqual(fields(over), [['numbers', 'too_many']]);
    assert.equal((await ok(t, org, 'GET', base)).lists[0].number_count, 10_000);
  });

  it('refuses an empty or over-long name', async () => {
    const { org, base } = await cellList();
    expectProblem(await call(t, org, 'POST', base, { name: '' }), 400, 'invalid_request');
    expectProblem(await call(t, org, 'POST', base, { name: 'x'.repeat(101) }), 400, 'invalid_request');
    const list = await ok(t, org, 'POST', base, { name: 'ok' }, 201);
    expectProblem(await call(t, org, 'PATCH', `${base}/${list.id}`, { name: '' }), 400, 'invalid_request');
  });

  it('does not find a cell list under a pod, nor a pod list under another pod', async () => {
    const [a, b] = await lines(t, 2);
    const podA = await createPod(t, a.org, [a.cell.id]);
    const podB = await createPod(t, a.org, [b.cell.id]);
    const cellList = await ok(t, a.org, 'POST', `/v1/cells/${a.cell.id}/lists`, { name: 'cell' }, 201);
    const podList = await ok(t, a.org, 'POST', `/v1/pods/${podA.id}/lists`, { name: 'pod' }, 201);
    expectProblem(await call(t, a.org, 'GET', `/v1/pods/${podA.id}/lists/${cellList.id}`), 404, 'not_found');
    expectProblem(await call(t, a.org, 'GET', `/v1/pods/${podB.id}/lists/${podList.id}`), 404, 'not_found');
    expectProblem(await call(t, a.org, 'GET', `/v1/cells/${b.cell.id}/lists/${cellList.id}`), 404, 'not_found');
  });
});
