import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, useApp } from '../../../test/harness.ts';
import { call, lines, ok } from '../../../test/support/pods.ts';

describe('ignore lists: bad input', () => {
  const t = useApp();

  it('refuses a participant that is not a phone number, on add and on remove', async () => {
    const [line] = await lines(t, 1);
    const base = `/v1/cells/${line.cell.id}/ignore`;
    const body = expectProblem(
      await call(t, line.org, 'POST', base, { participant: 'spammer' }),
      400,
      'invalid_request',
    );
    assert.deepEqual(
      body.errors.map((e: { field: string; code: string }) => [e.field, e.code]),
      [['participant', 'invalid_phone_number']],
    );
    expectProblem(await call(t, line.org, 'POST', base, {}), 400, 'invalid_request');
    expectProblem(await call(t, line.org, 'DELETE', `${base}/not-a-number`), 400, 'invalid_request');
    assert.deepEqual((await ok(t, line.org, 'GET', base)).ignored, []);
  });

  it('refuses include_ignored that is not a boolean', async () => {
    const [line] = await lines(t, 1);
    expectProblem(
      await call(t, line.org, 'GET', `/v1/cells/${line.cell.id}/messages?include_ignored=maybe`),
      400,
      'invalid_request',
    );
  });
});
