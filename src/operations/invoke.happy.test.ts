import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { TestApp } from '../../test/harness.ts';
import { probe, withPrincipal } from '../../test/support/operations.ts';
import type { AgentPrincipal } from './principals.ts';
import { ApiError } from '../lib/errors.ts';

describe('invoke', () => {
  let t: TestApp;
  let principal: AgentPrincipal;
  before(async () => ({ t, principal } = await withPrincipal()));
  after(async () => t?.close());

  it('runs the operation and answers its value', async () => {
    const { operation, state } = probe(t);
    const outcome = await t.services.invoker.invoke(operation, principal, { echo: 'hi' });
    assert.deepEqual(outcome, { replayed: false, value: { echo: 'hi', run: 0 } });
    assert.equal(state.runs, 1);
  });

  it('replays a recorded operation called again with its key, running it once', async () => {
    const { operation, state } = probe(t, { recorded: true });
    const first = await t.services.invoker.invoke(operation, principal, { echo: 'once' }, { idempotencyKey: 'k-rec' });
    const recorded = JSON.stringify({ echo: 'once', run: 0 });
    // The first answer carries the JSON its replays answer: a transport sends the same bytes.
    assert.deepEqual(first, { replayed: false, value: { echo: 'once', run: 0 }, body: recorded });
    const again = await t.services.invoker.invoke(operation, principal, { echo: 'once' }, { idempotencyKey: 'k-rec' });
    assert.deepEqual(again, { replayed: true, status: 202, body: recorded });
    assert.equal(state.runs, 2, 'a recorded operation is not looked up first: its second run rolled back');
  });

  it('looks a non-recorded operation up first and writes its outcome after: it runs once', async () => {
    const { operation, state } = probe(t);
    await t.services.invoker.invoke(operation, principal, { echo: 'plain' }, { idempotencyKey: 'k-plain' });
    const again = await t.services.invoker.invoke(
      operation,
      principal,
      { echo: 'plain' },
      { idempotencyKey: 'k-plain' },
    );
    assert.equal(again.replayed, true);
    assert.equal(state.runs, 1);
  });

  it('hashes the prepared input: two spellings of one call are the same call', async () => {
    const { operation, state } = probe(t);
    const options = { idempotencyKey: 'k-prep' };
    await t.services.invoker.invoke(operation, principal, { echo: 'x', to: '+1 415 555 0100' }, options);
    const again = await t.services.invoker.invoke(operation, principal, { echo: 'x', to: '+14155550100' }, options);
    assert.equal(again.replayed, true);
    assert.equal(state.runs, 1);
  });

  it("keeps an adapter's keys apart: the same key on another route is another call", async () => {
    const { operation, state } = probe(t);
    await t.services.invoker.invoke(operation, principal, { echo: 'a' }, { idempotencyKey: 'k-routes' });
    const other = await t.services.invoker.invoke(
      operation,
      principal,
      { echo: 'b' },
      { idempotencyKey: 'k-routes', idempotency: { route: 'mcp:probe' } },
    );
    assert.deepEqual(other, {
      replayed: false,
      value: { echo: 'b', run: 1 },
      body: JSON.stringify({ echo: 'b', run: 1 }),
    });
    assert.equal(state.runs, 2);
  });

  it('completes an error through the enrichers where there is a resource, once, telling whether headers travel', async () => {
    const seen: { resourceUrl: string; headers: boolean }[] = [];
    t.services.invoker.addEnricher(async ({ resourceUrl, headers }, error) => {
      if (error.code !== 'conflict') return error;
      seen.push({ resourceUrl, headers });
      return new ApiError('conflict', `${error.message} (completed)`);
    });
    const { operation } = probe(t, { fail: () => new ApiError('conflict', 'Busy.') });
    const refused = await t.services.invoker
      .invoke(operation, principal, { echo: 'e' }, { resourceUrl: 'http://cellgate.test/x', headers: true })
      .catch((error: ApiError) => error);
    assert.equal((refused as ApiError).message, 'Busy. (completed)');
    assert.deepEqual(seen, [{ resourceUrl: 'http://cellgate.test/x', headers: true }]);
    // Met again (the REST error handler), it is not completed twice.
    const again = await t.services.invoker.enrich(
      { principal, resourceUrl: 'http://cellgate.test/x', headers: true },
      refused as ApiError,
    );
    assert.equal(again, refused);
    assert.equal(seen.length, 1);
    // Without a resource (the console), nothing completes it.
    const plain = await t.services.invoker
      .invoke(operation, principal, { echo: 'e' })
      .catch((error: ApiError) => error);
    assert.equal((plain as ApiError).message, 'Busy.');
    assert.equal(seen.length, 1);
  });
});
