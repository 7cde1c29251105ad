// What one organization keeps is bounded (contract §2 "Stored resources", issue 33): each cap
// answers 409 conflict naming the limit and the fix, writes nothing past it, gives room back when
// a resource leaves, and holds exactly under parallel creates (on PostgreSQL too). The caps are
// shrunk for the suite; the defaults are proved on an app built without overrides, its counters
// set one short of the contract's values.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, useApp, type TestApp } from '../../test/harness.ts';
import { activeLine, type Line } from '../../test/support/messages.ts';
import { call, clientId, ok, recipients } from '../../test/support/pods.ts';
import { up } from '../db/migrations/0027_stored_counts.ts';
import { STORED_CAPS, type StoredResource } from './stored-caps.ts';

const HOUR = 60 * 60 * 1000;
const CAP = 3;

/** How to store one more of a resource, and how to make it leave, under one line (cell) of an organization. */
interface Kind {
  resource: Exclude<StoredResource, 'list_numbers' | 'discarded_drafts'>;
  create(t: TestApp, line: Line, i: number): ReturnType<typeof call>;
  remove(t: TestApp, line: Line, created: { id: string }, i: number): Promise<unknown>;
  /** The contract's number as the 409 writes it. */
  limit: string;
}

const KINDS: Kind[] = [
  {
    resource: 'pods',
    create: (t, line, i) => call(t, line.org, 'POST', '/v1/pods', { name: `Pod ${i}`, client_id: clientId('pod') }),
    remove: (t, line, pod) => ok(t, line.org, 'DELETE', `/v1/pods/${pod.id}`, undefined, 204),
    limit: '100 pods',
  },
  {
    resource: 'contact_lists',
    create: (t, line, i) => call(t, line.org, 'POST', `/v1/cells/${line.cell.id}/lists`, { name: `List ${i}` }),
    remove: (t, line, list) => ok(t, line.org, 'DELETE', `/v1/cells/${line.cell.id}/lists/${list.id}`, undefined, 204),
    limit: '1,000 contact lists',
  },
  {
    resource: 'drafts',
    create: (t, line, i) =>
      call(t, line.org, 'POST', `/v1/cells/${line.cell.id}/drafts`, {
        client_id: clientId('draft'),
        to: recipients(1, i)[0],
        body: 'draft',
      }),
    remove: (t, line, draft) => ok(t, line.org, 'DELETE', `/v1/cells/${line.cell.id}/drafts/${draft.id}`),
    limit: '10,000 drafts',
  },
  {
    resource: 'scheduled_messages',
    create: (t, line, i) =>
      call(t, line.org, 'POST', `/v1/cells/${line.cell.id}/messages/send`, {
        to: recipients(1, i)[0],
        body: 'later',
        send_at: new Date(t.clock.now().getTime() + HOUR).toISOString(),
      }),
    remove: (t, line, message) => ok(t, line.org, 'POST', `/v1/cells/${line.cell.id}/messages/${message.id}/cancel`),
    limit: '10,000 scheduled messages',
  },
  {
    resource: 'webhooks',
    create: (t, line) =>
      call(t, line.org, 'POST', '/v1/webhooks', { client_id: clientId('hook'), url: 'https://hooks.example.com/in' }),
    remove: (t, line, hook) => ok(t, line.org, 'DELETE', `/v1/webhooks/${hook.id}`, undefined, 204),
    limit: '50 webhook endpoints',
  },
  {
    resource: 'ignored_participants',
    create: (t, line, i) =>
      call(t, line.org, 'POST', `/v1/cells/${line.cell.id}/ignore`, { participant: recipients(1, i)[0] }),
    remove: (t, line, _entry, i) =>
      ok(
        t,
        line.org,
        'DELETE',
        `/v1/cells/${line.cell.id}/ignore/${encodeURIComponent(recipients(1, i)[0])}`,
        undefined,
        204,
      ),
    limit: '10,000 participants',
  },
];

/** What the resource's counter holds, and what is stored (so that the two can be compared). */
async function stored(t: TestApp, line: Line, resource: StoredResource): Promise<{ counted: number; rows: number }> {
  const db = t.database.db;
  const org = line.org.organizationId;
  const owner = resource === 'ignored_participants' ? line.cell.id : org;
  const counter = await db
    .selectFrom('stored_counts')
    .select('count')
    .where('owner_id', '=', owner)
    .where('resource', '=', resource)
    .executeTakeFirst();
  const count = async (query: Promise<{ n: number | string | bigint } | undefined>) => Number((await query)?.n ?? 0);
  const rows = {
    pods: () =>
      count(
        db
          .selectFrom('pods')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('organization_id', '=', org)
          .where('deleted_at', 'is', null)
          .executeTakeFirst(),
      ),
    contact_lists: () =>
      count(
        db
          .selectFrom('contact_lists')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('organization_id', '=', org)
          .executeTakeFirst(),
      ),
    list_numbers: () =>
      count(
        db
          .selectFrom('contact_list_numbers')
          .innerJoin('contact_lists', 'contact_lists.id', 'contact_list_numbers.list_id')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('contact_lists.organization_id', '=', org)
          .executeTakeFirst(),
      ),
    drafts: () =>
      count(
        db
          .selectFrom('drafts')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('organization_id', '=', org)
          .where('status', '=', 'draft')
          .executeTakeFirst(),
      ),
    discarded_drafts: () =>
      count(
        db
          .selectFrom('drafts')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('organization_id', '=', org)
          .where('status', '=', 'discarded')
          .executeTakeFirst(),
      ),
    scheduled_messages: () =>
      count(
        db
          .selectFrom('messages')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('organization_id', '=', org)
          .where('status', '=', 'scheduled')
          .executeTakeFirst(),
      ),
    webhooks: () =>
      count(
        db
          .selectFrom('webhooks')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('organization_id', '=', org)
          .where('deleted_at', 'is', null)
          .executeTakeFirst(),
      ),
    ignored_participants: () =>
      count(
        db
          .selectFrom('ignored_participants')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('scope_id', '=', line.cell.id)
          .executeTakeFirst(),
      ),
  };
  return { counted: Number(counter?.count ?? 0), rows: await rows[resource]() };
}

/** Sets the counter as if `count` were stored (to reach a default cap without storing it all). */
async function setCounter(t: TestApp, owner: string, resource: StoredResource, count: number) {
  await t.database.db
    .insertInto('stored_counts')
    .values({ owner_id: owner, resource, count })
    .onConflict((oc) => oc.columns(['owner_id', 'resource']).doUpdateSet({ count }))
    .execute();
}

describe('stored resources: caps', () => {
  const t = useApp({
    deps: {
      storedCaps: {
        pods: CAP,
        contact_lists: CAP,
        list_numbers: 6,
        drafts: CAP,
        discarded_drafts: CAP,
        scheduled_messages: CAP,
        webhooks: CAP,
        ignored_participants: CAP,
      },
    },
  });

  for (const kind of KINDS) {
    it(`${kind.resource}: 409 conflict at the cap, naming it, nothing stored past it; a removal makes room`, async () => {
      const line = await activeLine(t);
      const created = [];
      for (let i = 0; i < CAP; i++) {
        const response = await kind.create(t, line, i);
        assert.equal(response.statusCode, 201 + (kind.resource === 'scheduled_messages' ? 1 : 0), response.body);
        created.push(response.json() as { id: string });
      }
      const refused = expectProblem(await kind.create(t, line, CAP), 409, 'conflict');
      assert.match(refused.detail, new RegExp(`at most ${CAP} `));
      assert.match(refused.detail, /to make room|wait for them/);
      assert.deepEqual(await stored(t, line, kind.resource), { counted: CAP, rows: CAP });

      await kind.remove(t, line, created[0], 0);
      assert.deepEqual(await stored(t, line, kind.resource), { counted: CAP - 1, rows: CAP - 1 });
      const again = await kind.create(t, line, CAP + 1);
      assert.ok(again.statusCode < 300, again.body);
      assert.deepEqual(await stored(t, line, kind.resource), { counted: CAP, rows: CAP });
    });
  }

  it('list_numbers: a list whose numbers would pass the total is refused whole; adds and removes count', async () => {
    const line = await activeLine(t);
    const base = `/v1/cells/${line.cell.id}/lists`;
    const first = await ok(t, line.org, 'POST', base, { name: 'A', numbers: recipients(4) }, 201);
    const refused = expectProblem(
      await call(t, line.org, 'POST', base, { name: 'B', numbers: recipients(3, 10) }),
      409,
      'conflict',
    );
    assert.match(refused.detail, /at most 6 numbers in all/);
    assert.equal((await ok(t, line.org, 'GET', base)).lists.length, 1, 'no list B, not even empty');
    assert.deepEqual(await stored(t, line, 'contact_lists'), { counted: 1, rows: 1 });

    // An add past the total writes nothing; duplicates cost nothing; a removal makes room.
    expectProblem(
      await call(t, line.org, 'POST', `${base}/${first.id}/numbers`, { numbers: recipients(3, 20) }),
      409,
      'conflict',
    );
    assert.equal((await ok(t, line.org, 'GET', `${base}/${first.id}`)).number_count, 4);
    await ok(t, line.org, 'POST', `${base}/${first.id}/numbers`, { numbers: [...recipients(4), ...recipients(2, 20)] });
    assert.deepEqual(await stored(t, line, 'list_numbers'), { counted: 6, rows: 6 });
    await ok(t, line.org, 'POST', `${base}/${first.id}/numbers/remove`, { numbers: recipients(3) });
    assert.deepEqual(await stored(t, line, 'list_numbers'), { counted: 3, rows: 3 });
    await ok(t, line.org, 'POST', base, { name: 'B', numbers: recipients(3, 10) }, 201);
    assert.deepEqual(await stored(t, line, 'list_numbers'), { counted: 6, rows: 6 });
    // Deleting a list gives back its numbers too.
    await ok(t, line.org, 'DELETE', `${base}/${first.id}`, undefined, 204);
    assert.deepEqual(await stored(t, line, 'list_numbers'), { counted: 3, rows: 3 });
    assert.deepEqual(await stored(t, line, 'contact_lists'), { counted: 1, rows: 1 });
  });

  it('drafts: a sent draft leaves the drafts (room for another)', async () => {
    const line = await activeLine(t);
    const base = `/v1/cells/${line.cell.id}/drafts`;
    const drafts = [];
    for (let i = 0; i < CAP; i++)
      drafts.push(
        await ok(t, line.org, 'POST', base, { client_id: clientId('d'), to: recipients(1, i)[0], body: 'x' }, 201),
      );
    await ok(t, line.org, 'POST', `${base}/${drafts[0].id}/send`, {}, 202);
    assert.deepEqual(await stored(t, line, 'drafts'), { counted: CAP - 1, rows: CAP - 1 });
    await ok(t, line.org, 'POST', base, { client_id: clientId('d'), to: recipients(1, 9)[0], body: 'x' }, 201);
  });

  it('drafts: discarded ones stay readable up to their cap; past it a discard deletes the oldest discarded', async () => {
    const line = await activeLine(t);
    const base = `/v1/cells/${line.cell.id}/drafts`;
    const discarded = [];
    // Create and discard, twice the cap: the organization never keeps more than CAP discarded.
    for (let i = 0; i < 2 * CAP; i++) {
      const draft = await ok(
        t,
        line.org,
        'POST',
        base,
        { client_id: clientId('d'), to: recipients(1, i)[0], body: 'x' },
        201,
      );
      t.clock.advance(1000);
      discarded.push(await ok(t, line.org, 'DELETE', `${base}/${draft.id}`));
      assert.deepEqual(await stored(t, line, 'discarded_drafts'), {
        counted: Math.min(i + 1, CAP),
        rows: Math.min(i + 1, CAP),
      });
    }
    assert.deepEqual(await stored(t, line, 'drafts'), { counted: 0, rows: 0 });
    // The newest discarded are readable; the oldest are gone (404, like any unknown draft).
    for (const draft of discarded.slice(CAP))
      assert.equal((await ok(t, line.org, 'GET', `${base}/${draft.id}`)).status, 'discarded');
    for (const draft of discarded.slice(0, CAP))
      expectProblem(await call(t, line.org, 'GET', `${base}/${draft.id}`), 404, 'not_found');
  });

  it('drafts: deleting a pod discards its drafts within the discarded cap', async () => {
    const line = await activeLine(t);
    const cellDrafts = `/v1/cells/${line.cell.id}/drafts`;
    const lone = await ok(
      t,
      line.org,
      'POST',
      cellDrafts,
      { client_id: clientId('d'), to: recipients(1, 9)[0], body: 'x' },
      201,
    );
    await ok(t, line.org, 'DELETE', `${cellDrafts}/${lone.id}`);
    t.clock.advance(1000);
    const pod = await ok(
      t,
      line.org,
      'POST',
      '/v1/pods',
      { name: 'P', client_id: clientId('pod'), cell_ids: [line.cell.id] },
      201,
    );
    for (let i = 0; i < CAP; i++)
      await ok(
        t,
        line.org,
        'POST',
        `/v1/pods/${pod.id}/drafts`,
        { client_id: clientId('d'), to: recipients(1, i)[0], body: 'x' },
        201,
      );
    await ok(t, line.org, 'DELETE', `/v1/pods/${pod.id}`, undefined, 204);
    // CAP more discarded than fit beside the lone one: as many of the oldest go, the lone one first.
    assert.deepEqual(await stored(t, line, 'discarded_drafts'), { counted: 1, rows: 1 });
    assert.deepEqual(await stored(t, line, 'drafts'), { counted: 0, rows: 0 });
    expectProblem(await call(t, line.org, 'GET', `${cellDrafts}/${lone.id}`), 404, 'not_found');
  });

  it('scheduled messages: those that go out, and those of a released cell, leave; quiet-hours deferrals count', async () => {
    const line = await activeLine(t);
    const sendAt = () => new Date(t.clock.now().getTime() + HOUR).toISOString();
    const send = (i: number, extra: Record<string, unknown> = {}) =>
      call(t, line.org, 'POST', `/v1/cells/${line.cell.id}/messages/send`, {
        to: recipients(1, i)[0],
        body: 'later',
        ...extra,
      });
    for (let i = 0; i < CAP; i++) assert.equal((await send(i, { send_at: sendAt() })).statusCode, 202);
    expectProblem(await send(CAP, { send_at: sendAt() }), 409, 'conflict');
    // A send that is not scheduled pays nothing for the cap.
    assert.equal((await send(CAP)).json().status, 'queued');

    t.clock.advance(HOUR);
    await t.services.scheduledSends.tick();
    assert.deepEqual(await stored(t, line, 'scheduled_messages'), { counted: 0, rows: 0 });

    // Quiet hours that hold every send: each deferral is a scheduled message.
    await ok(t, line.org, 'PATCH', `/v1/cells/${line.cell.id}`, {
      quiet_hours: { start: '00:00', end: '23:59', time_zone: 'UTC' },
    });
    const deferred = [];
    for (let i = 0; i < CAP; i++) {
      const response = await send(10 + i);
      assert.equal(response.json().status, 'scheduled', response.body);
      deferred.push(response.json());
    }
    expectProblem(await send(20), 409, 'conflict');
    assert.equal((await send(21, { send_now: true })).json().status, 'queued');
    assert.deepEqual(await stored(t, line, 'scheduled_messages'), { counted: CAP, rows: CAP });

    await ok(t, line.org, 'DELETE', `/v1/cells/${line.cell.id}`);
    assert.deepEqual(await stored(t, line, 'scheduled_messages'), { counted: 0, rows: 0 });
  });

  it('a deleted pod and a released cell give back the room of their drafts and lists', async () => {
    const line = await activeLine(t);
    const pod = await ok(t, line.org, 'POST', '/v1/pods', { name: 'Gone', client_id: clientId('pod') }, 201);
    for (const base of [`/v1/pods/${pod.id}`, `/v1/cells/${line.cell.id}`]) {
      await ok(t, line.org, 'POST', `${base}/lists`, { name: 'L', numbers: recipients(3) }, 201);
      await ok(
        t,
        line.org,
        'POST',
        `${base}/drafts`,
        { client_id: clientId('d'), to: recipients(1)[0], body: 'x' },
        201,
      );
    }
    assert.deepEqual(await stored(t, line, 'list_numbers'), { counted: 6, rows: 6 });
    assert.deepEqual(await stored(t, line, 'drafts'), { counted: 2, rows: 2 });

    await ok(t, line.org, 'DELETE', `/v1/pods/${pod.id}`, undefined, 204);
    assert.deepEqual(await stored(t, line, 'list_numbers'), { counted: 3, rows: 3 });
    assert.deepEqual(await stored(t, line, 'contact_lists'), { counted: 1, rows: 1 });
    assert.deepEqual(await stored(t, line, 'drafts'), { counted: 1, rows: 1 });

    await ok(t, line.org, 'DELETE', `/v1/cells/${line.cell.id}`);
    for (const resource of ['list_numbers', 'contact_lists', 'drafts'] as const)
      assert.deepEqual(await stored(t, line, resource), { counted: 0, rows: 0 }, resource);
  });

  it('a broadcast with send_at must fit among the scheduled messages, with the broadcasts not planned yet', async () => {
    const line = await activeLine(t);
    const pod = await ok(
      t,
      line.org,
      'POST',
      '/v1/pods',
      { name: 'B', client_id: clientId('pod'), cell_ids: [line.cell.id] },
      201,
    );
    const sendAt = new Date(t.clock.now().getTime() + 2 * HOUR).toISOString();
    const cycle = (to: string[]) =>
      call(t, line.org, 'POST', `/v1/pods/${pod.id}/messages/cycle`, {
        mode: 'broadcast',
        body: 'x',
        to,
        send_at: sendAt,
      });
    assert.equal((await cycle(recipients(2))).statusCode, 202);
    const refused = expectProblem(await cycle(recipients(2, 10)), 409, 'conflict');
    assert.match(refused.detail, /scheduled messages/);
    assert.equal((await cycle(recipients(1, 10))).statusCode, 202);
    assert.equal((await ok(t, line.org, 'GET', `/v1/pods/${pod.id}/jobs`)).jobs.length, 2);
  });
});

describe('stored resources: the contract’s caps by default', () => {
  const t = useApp();

  it('holds STORED_CAPS at the contract’s values', () => {
    assert.deepEqual(STORED_CAPS, {
      pods: 100,
      contact_lists: 1_000,
      list_numbers: 100_000,
      drafts: 10_000,
      discarded_drafts: 10_000,
      scheduled_messages: 10_000,
      webhooks: 50,
      ignored_participants: 10_000,
    });
  });

  for (const kind of KINDS) {
    it(`${kind.resource}: the last place of ${kind.limit}, then 409`, async () => {
      const line = await activeLine(t);
      const owner = kind.resource === 'ignored_participants' ? line.cell.id : line.org.organizationId;
      await setCounter(t, owner, kind.resource, STORED_CAPS[kind.resource] - 1);
      const last = await kind.create(t, line, 0);
      assert.ok(last.statusCode < 300, last.body);
      const refused = expectProblem(await kind.create(t, line, 1), 409, 'conflict');
      assert.match(refused.detail, new RegExp(`at most ${kind.limit}`));
    });
  }

  it('list_numbers: 100,000 in all', async () => {
    const line = await activeLine(t);
    await setCounter(t, line.org.organizationId, 'list_numbers', 100_000 - 2);
    const base = `/v1/cells/${line.cell.id}/lists`;
    expectProblem(await call(t, line.org, 'POST', base, { name: 'L', numbers: recipients(3) }), 409, 'conflict');
    await ok(t, line.org, 'POST', base, { name: 'L', numbers: recipients(2) }, 201);
  });
});

describe('stored resources: parallel creates at the edge', () => {
  const t = useApp({
    deps: {
      storedCaps: {
        pods: 5,
        contact_lists: 5,
        list_numbers: 5,
        drafts: 5,
        scheduled_messages: 5,
        webhooks: 5,
        ignored_participants: 5,
      },
    },
  });
  const PARALLEL = 16;

  for (const kind of KINDS) {
    it(`${kind.resource}: ${PARALLEL} at once store exactly 5`, async () => {
      const line = await activeLine(t);
      const responses = await Promise.all(Array.from({ length: PARALLEL }, (_, i) => kind.create(t, line, i)));
      const statuses = responses.map((response) => response.statusCode);
      assert.equal(statuses.filter((status) => status < 300).length, 5, statuses.join(' '));
      assert.equal(statuses.filter((status) => status === 409).length, PARALLEL - 5, statuses.join(' '));
      assert.deepEqual(await stored(t, line, kind.resource), { counted: 5, rows: 5 });
    });
  }

  it(`list_numbers: ${PARALLEL} lists of one number at once store exactly 5 numbers`, async () => {
    const line = await activeLine(t);
    const responses = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) =>
        call(t, line.org, 'POST', `/v1/cells/${line.cell.id}/lists`, { name: `L${i}`, numbers: recipients(1, i) }),
      ),
    );
    assert.equal(responses.filter((response) => response.statusCode === 201).length, 5);
    assert.deepEqual(await stored(t, line, 'list_numbers'), { counted: 5, rows: 5 });
  });
});

describe('stored resources: migration 0027 counts what was stored before it', () => {
  const t = useApp();

  it('fills each counter from the rows (live pods and webhooks, drafts in draft, scheduled messages, list numbers)', async () => {
    const line = await activeLine(t);
    for (const kind of KINDS) {
      const created = [];
      for (let i = 0; i < 3; i++) created.push((await kind.create(t, line, i)).json() as { id: string });
      await kind.remove(t, line, created[0], 0);
    }
    await ok(t, line.org, 'POST', `/v1/cells/${line.cell.id}/lists`, { name: 'N', numbers: recipients(4) }, 201);
    const before = await Promise.all(
      [...KINDS.map((kind) => kind.resource), 'list_numbers' as const].map((resource) => stored(t, line, resource)),
    );
    await t.database.db.schema.dropTable('stored_counts').execute();
    await up(t.database.db);
    const after = await Promise.all(
      [...KINDS.map((kind) => kind.resource), 'list_numbers' as const].map((resource) => stored(t, line, resource)),
    );
    assert.deepEqual(after, before);
    assert.deepEqual(
      after.map(({ counted }) => counted),
      [2, 3, 2, 2, 2, 2, 4],
    );
  });
});
