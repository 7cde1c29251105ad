import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from '../../../test/harness.ts';
import { createPod, lines, ok, recipients } from '../../../test/support/pods.ts';

describe('contact lists', () => {
  const t = useApp();

  for (const kind of ['cell', 'pod'] as const) {
    describe(`under a ${kind}`, () => {
      const scopeUrl = async () => {
        const [line] = await lines(t, 1);
        const id = kind === 'cell' ? line.cell.id : (await createPod(t, line.org, [line.cell.id])).id;
        return { org: line.org, base: `/v1/${kind}s/${id}/lists` };
      };

      it('creates a list (201) with its numbers normalised to E.164, deduplicated and in number order', async () => {
        const { org, base } = await scopeUrl();
        const list = await ok(
          t,
          org,
          'POST',
          base,
          { name: 'Regulars', numbers: ['+1 (415) 555-0199', '+14155550198', '+14155550199'] },
          201,
        );
        assert.deepEqual(Object.keys(list).sort(), [
          'created_at',
          'id',
          'name',
          'number_count',
          'numbers',
          'updated_at',
        ]);
        assert.match(list.id, /^lst_[0-9a-z]{26}$/);
        assert.deepEqual(list.numbers, ['+14155550198', '+14155550199']);
        assert.equal(list.number_count, 2);
        assert.deepEqual(await ok(t, org, 'GET', `${base}/${list.id}`), list);
      });

      it('lists lists without their numbers, newest first, with a cursor', async () => {
        const { org, base } = await scopeUrl();
        for (const name of ['a', 'b', 'c']) await ok(t, org, 'POST', base, { name }, 201);
        const page = await ok(t, org, 'GET', `${base}?limit=2`);
        assert.deepEqual(
          page.lists.map((l: { name: string }) => l.name),
          ['c', 'b'],
        );
        assert.deepEqual(Object.keys(page.lists[0]).sort(), ['created_at', 'id', 'name', 'number_count', 'updated_at']);
        const rest = await ok(t, org, 'GET', `${base}?cursor=${page.next_cursor}`);
        assert.deepEqual(
          rest.lists.map((l: { name: string }) => l.name),
          ['a'],
        );
      });

      it('adds numbers (duplicates ignored), removes numbers (absent ones ignored), renames and deletes', async () => {
        const { org, base } = await scopeUrl();
        const list = await ok(t, org, 'POST', base, { name: 'Grow', numbers: ['+14155550101'] }, 201);
        t.clock.advance(1000);
        const grown = await ok(t, org, 'POST', `${base}/${list.id}/numbers`, {
          numbers: ['+14155550101', '+14155550102', '+1 415 555 0103'],
        });
        assert.deepEqual(grown.numbers, ['+14155550101', '+14155550102', '+14155550103']);
        assert.equal(grown.number_count, 3);
        assert.equal(grown.updated_at, t.clock.now().toISOString());
        const shrunk = await ok(t, org, 'POST', `${base}/${list.id}/numbers/remove`, {
          numbers: ['+14155550102', '+14155550199'],
        });
        assert.deepEqual(shrunk.numbers, ['+14155550101', '+14155550103']);
        assert.equal(shrunk.number_count, 2);
        const renamed = await ok(t, org, 'PATCH', `${base}/${list.id}`, { name: 'Renamed' });
        assert.equal(renamed.name, 'Renamed');
        assert.deepEqual(renamed.numbers, shrunk.numbers);
        await ok(t, org, 'DELETE', `${base}/${list.id}`, undefined, 204);
        assert.equal((await t.app.inject({ url: `${base}/${list.id}`, headers: org.headers })).statusCode, 404);
      });

      it('holds exactly 10,000 numbers', async () => {
        const { org, base } = await scopeUrl();
        const list = await ok(t, org, 'POST', base, { name: 'Big', numbers: recipients(9_999) }, 201);
        assert.equal(list.number_count, 9_999);
        const full = await ok(t, org, 'POST', `${base}/${list.id}/numbers`, { numbers: recipients(2, 9_998) });
        assert.equal(full.number_count, 10_000);
      });
    });
  }
});
