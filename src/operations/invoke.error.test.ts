import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { TestApp } from '../../test/harness.ts';
import { probe, withPrincipal } from '../../test/support/operations.ts';
import type { AgentPrincipal } from './principals.ts';
import { ApiError } from '../lib/errors.ts';

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => assert.fail('expected a refusal'),
    (error: unknown) => {
      assert.ok(error instanceof ApiError, String(error));
      return error;
    },
  );

describe('invoke refuses', () => {
  let t: TestApp;
  let principal: AgentPrincipal;
  before(async () => ({ t, principal } = await withPrincipal()));
  after(async () => t?.close());

  it('input that fails the schema, naming each field, before running', async () => {
    const { operation, state } = probe(t);
    const error = await refusal(t.services.invoker.invoke(operation, principal, { echo: '', extra: 1 }));
    assert.equal(error.code, 'invalid_request');
    assert.deepEqual(error.errors?.map((e) => [e.field, e.code]).sort(), [
      ['echo', 'too_short'],
      ['extra', 'unknown_field'],
    ]);
    assert.equal(state.runs, 0);
  });

  it('a call without the key an operation requires', async () => {
    const { operation, state } = probe(t, { idempotency: 'required' });
    const error = await refusal(t.services.invoker.invoke(operation, principal, { echo: 'k' }));
    assert.equal(error.code, 'invalid_request');
    assert.equal(error.errors?.[0]?.field, 'idempotency_key');
    assert.equal(state.runs, 0);
  });

  it('a key that is not 1-255 printable characters', async () => {
    const { operation } = probe(t);
    for (const key of ['', 'x'.repeat(256), 'tab\there']) {
      const error = await refusal(
        t.services.invoker.invoke(operation, principal, { echo: 'k' }, { idempotencyKey: key }),
      );
      assert.equal(error.code, 'invalid_request', JSON.stringify(key));
    }
  });

  it('a key used with other input: idempotency_key_reused, recorded or not', async () => {
    for (const recorded of [false, true]) {
      const { operation } = probe(t, { recorded });
      const key = `k-reused-${recorded}`;
      await t.services.invoker.invoke(operation, principal, { echo: 'one' }, { idempotencyKey: key });
      const error = await refusal(
        t.services.invoker.invoke(operation, principal, { echo: 'two' }, { idempotencyKey: key }),
      );
      assert.equal(error.code, 'idempotency_key_reused', `recorded ${recorded}`);
    }
  });

  it('a key whose first call is still running: idempotency_request_in_progress', async () => {
    let release!: () => void;
    const { operation } = probe(t, { recorded: true });
    const slow = {
      ...operation,
      run: async () => new Promise<never>((_, reject) => (release = () => reject(new Error('gone')))),
    };
    const first = t.services.invoker.invoke(slow, principal, { echo: 's' }, { idempotencyKey: 'k-flight' });
    const error = await refusal(
      t.services.invoker.invoke(slow, principal, { echo: 's' }, { idempotencyKey: 'k-flight' }),
    );
    assert.equal(error.code, 'idempotency_request_in_progress');
    release();
    await assert.rejects(first, /gone/);
    // Released: the key is free again.
    const after = await t.services.invoker.invoke(operation, principal, { echo: 's' }, { idempotencyKey: 'k-flight' });
    assert.equal(after.replayed, false);
  });

  it('keeps a refusal of the rules for the key and replays it; a 400 or a 402 is not kept', async () => {
    let next: ApiError | undefined = new ApiError('cell_not_active', 'Not active.');
    const { operation, state } = probe(t, { recorded: true, fail: () => next });
    const keep = (error: ApiError) => JSON.stringify({ code: error.code, kept: true });
    await refusal(t.services.invoker.invoke(operation, principal, { echo: 'r' }, { idempotencyKey: 'k-409', keep }));
    next = undefined;
    const replay = await t.services.invoker.invoke(
      operation,
      principal,
      { echo: 'r' },
      { idempotencyKey: 'k-409', keep },
    );
    assert.deepEqual(replay, {
      replayed: true,
      status: 409,
      body: JSON.stringify({ code: 'cell_not_active', kept: true }),
    });

    for (const [code, key] of [
      ['invalid_request', 'k-400'],
      ['payment_required', 'k-402'],
    ] as const) {
      next = new ApiError(code, 'No.');
      await refusal(t.services.invoker.invoke(operation, principal, { echo: 'r' }, { idempotencyKey: key }));
      next = undefined;
      const retried = await t.services.invoker.invoke(operation, principal, { echo: 'r' }, { idempotencyKey: key });
      assert.equal(retried.replayed, false, `${code} is not kept`);
    }
    assert.ok(state.runs >= 5);
  });
});
