import { before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { activeOrganization, bearer, expectProblem, useApp, type TestApp } from '../../test/harness.ts';
import { ApiError } from '../lib/errors.ts';
import { Body } from '../http/schemas.ts';
import { canonicalJson } from '../lib/canonical-json.ts';
import { recordOutcomes } from './idempotency.ts';
import { defineOperation } from './operation.ts';
import { requestHash } from './rest.ts';

// A probe route shaped like a send: it counts executions, can be held open, and can fail.
/** The recorded route's work fails (as a send does once its cell is deleted). */
let workFails = false;
let executions = 0;
let gate: Promise<void> | null = null;
/** The key of the recorded probe's current request (its work rows are named after it). */
let workKey = '';
let database: TestApp['database'];

/** A send-shaped probe: counts executions, can be held open, can fail. */
const probeSend = defineOperation({
  name: 'probe_send',
  summary: 'Probe',
  description: 'A test send.',
  scope: null,
  idempotency: 'optional',
  status: 201,
  errors: [],
  input: Body({ to: Type.String({ minLength: 1 }), outcome: Type.Optional(Type.Enum(['ok', 'conflict', 'crash'])) }),
  output: Type.Object({}),
  run: async (ctx, input) => {
    executions += 1;
    const n = executions;
    if (gate) await gate;
    if (input.outcome === 'conflict') throw new ApiError('conflict', 'probe conflict');
    if (input.outcome === 'crash') throw new Error('probe crash');
    return { execution: n, to: input.to, organization_id: ctx.organizationId };
  },
});

/** Like a send: the work and its idempotent outcome commit together. */
const probeRecorded = defineOperation({
  name: 'probe_recorded_send',
  summary: 'Probe',
  description: 'A test send that records its outcome in its transaction.',
  scope: null,
  idempotency: 'optional',
  recorded: true,
  status: 201,
  errors: [],
  input: Body({ to: Type.String({ minLength: 1 }) }),
  output: Type.Object({}),
  run: (ctx, input) =>
    database.db.transaction().execute(async (tx) => {
      const key = `${ctx.organizationId}:${input.to}:${executions++}`;
      await tx
        .insertInto('dev_outbox')
        .values({
          id: `mail_${workKey}_${input.to}`,
          to_address: `work-${workKey}`,
          subject: 's',
          text: key,
          created_at: new Date().toISOString(),
        })
        .execute();
      if (input.to === 'gone' || workFails)
        throw new ApiError('not_found', 'The work fails now (as a send to a deleted cell would).');
      const result = { done: workKey };
      if (ctx.record) await recordOutcomes(tx, [ctx.record(result)]);
      return result;
    }),
});

describe('Idempotency-Key', () => {
  let headers: Record<string, string>;
  let key = 0;
  const nextKey = () => `key-${++key}-${Date.now()}`;
  const send = (payload: unknown, idempotencyKey?: string, auth = headers) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/test/sends',
      headers: { ...auth, ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }) },
      payload: payload as Record<string, unknown>,
    });

  const t = useApp({
    routes: (app, services) => {
      const { rest } = services;
      // Bound from operations as every Idempotency-Key route is: invoke claims the key.
      rest.bind(app, probeSend, {
        method: 'POST',
        url: '/v1/test/sends',
        tags: ['Test'],
        hide: true,
        response: Type.Object({ execution: Type.Integer(), to: Type.String(), organization_id: Type.String() }),
      });
      rest.bind(app, probeRecorded, {
        method: 'POST',
        url: '/v1/test/recorded-sends',
        tags: ['Test'],
        hide: true,
        response: Type.Object({ done: Type.Optional(Type.String()), winner: Type.Optional(Type.String()) }),
      });
    },
  });
  before(async () => {
    database = t.database;
    headers = (await activeOrganization(t)).headers;
  });
  beforeEach(() => {
    executions = 0;
    gate = null;
  });

  it('replays the first response (status and body) with Idempotent-Replayed: true', async () => {
    const idempotencyKey = nextKey();
    const first = await send({ to: 'a' }, idempotencyKey);
    assert.equal(first.statusCode, 201);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const again = await send({ to: 'a' }, idempotencyKey);
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    assert.match(String(again.headers['content-type']), /^application\/json/);
    assert.equal(executions, 1);
  });

  it('treats a body with the same fields in another order as the same request', async () => {
    const idempotencyKey = nextKey();
    await t.app.inject({
      method: 'POST',
      url: '/v1/test/sends',
      headers: { ...headers, 'idempotency-key': idempotencyKey, 'content-type': 'application/json' },
      payload: '{"to":"a","outcome":"ok"}',
    });
    const again = await t.app.inject({
      method: 'POST',
      url: '/v1/test/sends',
      headers: { ...headers, 'idempotency-key': idempotencyKey, 'content-type': 'application/json' },
      payload: '{ "outcome": "ok", "to": "a" }',
    });
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(executions, 1);
  });

  it('same key with a different body is 422 idempotency_key_reused', async () => {
    const idempotencyKey = nextKey();
    await send({ to: 'a' }, idempotencyKey);
    expectProblem(await send({ to: 'b' }, idempotencyKey), 422, 'idempotency_key_reused');
    assert.equal(executions, 1);
  });

  it('without a key every request executes', async () => {
    await send({ to: 'a' });
    await send({ to: 'a' });
    assert.equal(executions, 2);
  });

  it('the same key in another organization is a separate request', async () => {
    const other = await activeOrganization(t);
    const idempotencyKey = nextKey();
    const mine = await send({ to: 'a' }, idempotencyKey);
    const theirs = await send({ to: 'a' }, idempotencyKey, other.headers);
    assert.equal(theirs.statusCode, 201);
    assert.equal(theirs.headers['idempotent-replayed'], undefined);
    assert.notEqual(theirs.json().organization_id, mine.json().organization_id);
    assert.equal(executions, 2);
  });

  it('concurrent requests with one key execute once: the others get 409 in progress or the replay', async () => {
    const idempotencyKey = nextKey();
    let open!: () => void;
    gate = new Promise((resolve) => {
      open = resolve;
    });
    const first = send({ to: 'a' }, idempotencyKey);
    while (executions === 0) await new Promise((resolve) => setImmediate(resolve));
    const racers = await Promise.all(Array.from({ length: 4 }, () => send({ to: 'a' }, idempotencyKey)));
    open();
    const winner = await first;
    assert.equal(winner.statusCode, 201);
    for (const r of racers) {
      if (r.statusCode === 409) expectProblem(r, 409, 'idempotency_request_in_progress');
      else assert.equal(r.headers['idempotent-replayed'], 'true');
    }
    assert.equal(executions, 1);
  });

  it('truly simultaneous requests with one key never execute twice', async () => {
    const idempotencyKey = nextKey();
    const responses = await Promise.all(Array.from({ length: 6 }, () => send({ to: 'z' }, idempotencyKey)));
    assert.equal(executions, 1);
    assert.equal(
      responses.filter((r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === undefined).length,
      1,
    );
    for (const r of responses) assert.ok(r.statusCode === 201 || r.statusCode === 409, r.body);
  });

  describe('a route that records in its own transaction (no lookup before the work)', () => {
    const recorded = (idempotencyKey: string, to: string) => {
      workKey = idempotencyKey;
      return t.app.inject({
        method: 'POST',
        url: '/v1/test/recorded-sends',
        headers: { ...headers, 'idempotency-key': idempotencyKey },
        payload: { to },
      });
    };
    const worked = async (idempotencyKey: string) =>
      (
        await t.database.db
          .selectFrom('dev_outbox')
          .select('id')
          .where('to_address', '=', `work-${idempotencyKey}`)
          .execute()
      ).map((row) => row.id);

    it("writes the outcome in the work's transaction: the replay is that record", async () => {
      const idempotencyKey = nextKey();
      const first = await recorded(idempotencyKey, 'solo');
      assert.equal(first.statusCode, 201);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      const again = await recorded(idempotencyKey, 'solo');
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.json(), first.json());
      assert.deepEqual(await worked(idempotencyKey), [`mail_${idempotencyKey}_solo`], 'the work happened once');
    });

    it('a key finished first elsewhere rolls the work back and replays the winner', async () => {
      const idempotencyKey = nextKey();
      // Another process records the key while this request works (as if it won the race).
      const organizationId = (await t.services.organizations.authenticate(headers.authorization.slice(7)))!
        .organizationId;
      const hash = requestHash({ method: 'POST', url: '/v1/test/recorded-sends', body: { to: 'race' } } as never);
      await recordOutcomes(t.database.db, [
        t.services.idempotency.outcome(
          { organizationId, route: '/v1/test/recorded-sends', key: idempotencyKey },
          hash,
          201,
          JSON.stringify({ winner: 'the other process' }),
        ),
      ]);
      const response = await recorded(idempotencyKey, 'race');
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.headers['idempotent-replayed'], 'true');
      assert.deepEqual(response.json(), { winner: 'the other process' });
      assert.deepEqual(await worked(idempotencyKey), [], 'the losing transaction must roll back');
    });

    it('a used key with another request is 422, and the work left nothing', async () => {
      const idempotencyKey = nextKey();
      assert.equal((await recorded(idempotencyKey, 'first')).statusCode, 201);
      expectProblem(await recorded(idempotencyKey, 'second'), 422, 'idempotency_key_reused');
      assert.deepEqual(await worked(idempotencyKey), [`mail_${idempotencyKey}_first`]);
    });

    it('when the work now fails, a used key still replays its first response', async () => {
      const idempotencyKey = nextKey();
      const first = await recorded(idempotencyKey, 'solo');
      assert.equal(first.statusCode, 201);
      workFails = true;
      try {
        const again = await recorded(idempotencyKey, 'solo');
        assert.equal(again.statusCode, 201, again.body);
        assert.equal(again.headers['idempotent-replayed'], 'true');
        assert.deepEqual(again.json(), first.json());
        // A failure is kept too (not a 400): it replays, even once the work would succeed.
        const failedKey = nextKey();
        expectProblem(await recorded(failedKey, 'solo'), 404, 'not_found');
        workFails = false;
        const replayed = await recorded(failedKey, 'solo');
        expectProblem(replayed, 404, 'not_found');
        assert.equal(replayed.headers['idempotent-replayed'], 'true');
      } finally {
        workFails = false;
      }
      assert.deepEqual(await worked(idempotencyKey), [`mail_${idempotencyKey}_solo`]);
    });

    it('a failure with a fresh key answers the failure', async () => {
      const response = await recorded(nextKey(), 'gone');
      expectProblem(response, 404, 'not_found');
      assert.equal(response.headers['idempotent-replayed'], undefined);
    });
  });

  it('a request that fails validation is not stored: the key stays free', async () => {
    const idempotencyKey = nextKey();
    expectProblem(await send({ to: '' }, idempotencyKey), 400, 'invalid_request');
    expectProblem(await send({ to: 'a', extra: 1 }, idempotencyKey), 400, 'invalid_request');
    const ok = await send({ to: 'a' }, idempotencyKey);
    assert.equal(ok.statusCode, 201);
    assert.equal(ok.headers['idempotent-replayed'], undefined);
    assert.equal(executions, 1);
  });

  it('a 5xx releases the key so the retry executes', async () => {
    const idempotencyKey = nextKey();
    expectProblem(await send({ to: 'a', outcome: 'crash' }, idempotencyKey), 500, 'internal_error');
    const rows = await t.database.db
      .selectFrom('idempotency_keys')
      .select('key')
      .where('key', '=', idempotencyKey)
      .execute();
    assert.equal(rows.length, 0);
    const retry = await send({ to: 'a', outcome: 'crash' }, idempotencyKey);
    assert.equal(retry.headers['idempotent-replayed'], undefined);
    assert.equal(executions, 2);
  });

  it('a 4xx outcome of the handler is replayed as problem+json', async () => {
    const idempotencyKey = nextKey();
    const first = await send({ to: 'a', outcome: 'conflict' }, idempotencyKey);
    expectProblem(first, 409, 'conflict');
    const again = await send({ to: 'a', outcome: 'conflict' }, idempotencyKey);
    expectProblem(again, 409, 'conflict');
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    assert.equal(executions, 1);
  });

  it('keys are kept 24 hours, then the same key executes again', async () => {
    const idempotencyKey = nextKey();
    await send({ to: 'a' }, idempotencyKey);
    t.clock.advance(24 * 60 * 60 * 1000 - 1);
    assert.equal((await send({ to: 'a' }, idempotencyKey)).headers['idempotent-replayed'], 'true');
    expectProblem(await send({ to: 'b' }, idempotencyKey), 422, 'idempotency_key_reused');
    t.clock.advance(1);
    const fresh = await send({ to: 'b' }, idempotencyKey);
    assert.equal(fresh.statusCode, 201);
    assert.equal(fresh.headers['idempotent-replayed'], undefined);
    assert.equal(executions, 2);
  });

  it('pruneExpired deletes rows older than 24 hours', async () => {
    await send({ to: 'a' }, nextKey());
    t.clock.advance(24 * 60 * 60 * 1000);
    assert.ok((await t.services.idempotency.pruneExpired()) >= 1);
    const left = await t.database.db
      .selectFrom('idempotency_keys')
      .select('key')
      .where('expires_at', '<=', t.clock.now().toISOString())
      .execute();
    assert.equal(left.length, 0);
  });

  for (const [label, value] of [
    ['empty', ''],
    ['longer than 255 characters', 'k'.repeat(256)],
    ['non-printable', 'a\tb'],
  ] as const) {
    it(`an Idempotency-Key that is ${label} is 400 invalid_request`, async () => {
      const body = expectProblem(await send({ to: 'a' }, value), 400, 'invalid_request');
      assert.equal(body.errors[0].field, 'Idempotency-Key');
      assert.equal(executions, 0);
    });
  }

  it('an unauthenticated request with a key is 401 and stores nothing', async () => {
    const idempotencyKey = nextKey();
    expectProblem(await send({ to: 'a' }, idempotencyKey, bearer(`cg_live_${'Q'.repeat(32)}`)), 401, 'unauthenticated');
    assert.equal(
      (await t.database.db.selectFrom('idempotency_keys').select('key').where('key', '=', idempotencyKey).execute())
        .length,
      0,
    );
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops undefined members', () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: undefined } }),
      '{"a":{"d":[1,{"y":2,"z":1}]},"b":1}',
    );
    assert.notEqual(canonicalJson({ a: '1' }), canonicalJson({ a: 1 }));
  });
});
