import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, startApp, type TestApp } from '../../../test/harness.ts';
import { activeLine, type Line } from '../../../test/support/messages.ts';
import { call, podWithLines } from '../../../test/support/pods.ts';

describe('quiet hours: bad requests', () => {
  let t: TestApp;
  let line: Line;
  before(async () => {
    t = await startApp();
    line = await activeLine(t);
  });
  after(() => t.close());

  const fields = (body: { errors: { field: string; code: string }[] }) =>
    body.errors.map((e) => `${e.field}:${e.code}`).sort();
  const bad = [
    [{ start: '25:00', end: '08:00', time_zone: 'UTC' }, ['quiet_hours.start:invalid_format']],
    [{ start: '21:00', end: '8:00', time_zone: 'UTC' }, ['quiet_hours.end:invalid_format']],
    [{ start: '21:00', end: '08:00', time_zone: 'Mars/Olympus' }, ['quiet_hours.time_zone:invalid_time_zone']],
    [{ start: '21:00', end: '08:00', time_zone: '+05:00' }, ['quiet_hours.time_zone:invalid_time_zone']],
    [{ start: '21:00', end: '21:00', time_zone: 'UTC' }, ['quiet_hours.end:invalid_value']],
  ] as const;

  it('refuses bad times and zones on a cell, naming each part, and changes nothing', async () => {
    for (const [quiet, expected] of bad) {
      const body = expectProblem(
        await call(t, line.org, 'PATCH', `/v1/cells/${line.cell.id}`, { quiet_hours: quiet }),
        400,
        'invalid_request',
      );
      assert.deepEqual(fields(body), [...expected].sort(), JSON.stringify(quiet));
    }
    const cell = (await call(t, line.org, 'GET', `/v1/cells/${line.cell.id}`)).json();
    assert.equal(cell.quiet_hours, null);
  });

  it('refuses malformed quiet_hours objects and an empty PATCH', async () => {
    for (const quiet_hours of [
      'night',
      { start: '21:00', end: '08:00' },
      { start: '21:00', end: '08:00', time_zone: 'UTC', extra: 1 },
      { start: 2100, end: '08:00', time_zone: 'UTC' },
    ])
      expectProblem(
        await call(t, line.org, 'PATCH', `/v1/cells/${line.cell.id}`, { quiet_hours }),
        400,
        'invalid_request',
      );
    expectProblem(await call(t, line.org, 'PATCH', `/v1/cells/${line.cell.id}`, {}), 400, 'invalid_request');
  });

  it('refuses bad quiet hours on a pod', async () => {
    const { org, pod } = await podWithLines(t, 1);
    for (const [quiet, expected] of bad) {
      const body = expectProblem(
        await call(t, org, 'PATCH', `/v1/pods/${pod.id}`, { quiet_hours: quiet }),
        400,
        'invalid_request',
      );
      assert.deepEqual(fields(body), [...expected].sort());
    }
  });

  it('stores a time zone in its canonical IANA spelling, whatever the letter case, on a cell and a pod', async () => {
    const spelt = { start: '21:00', end: '08:00', time_zone: 'america/NEW_york' };
    const cell = await call(t, line.org, 'PATCH', `/v1/cells/${line.cell.id}`, { quiet_hours: spelt });
    assert.equal(cell.statusCode, 200, cell.body);
    assert.equal(cell.json().quiet_hours.time_zone, 'America/New_York');
    const stored = await t.database.db
      .selectFrom('cells')
      .select('quiet_hours')
      .where('id', '=', line.cell.id)
      .executeTakeFirstOrThrow();
    assert.equal(JSON.parse(stored.quiet_hours as string).time_zone, 'America/New_York');
    const { org, pod } = await podWithLines(t, 1);
    const patched = await call(t, org, 'PATCH', `/v1/pods/${pod.id}`, {
      quiet_hours: { ...spelt, time_zone: 'EUROPE/paris' },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().quiet_hours.time_zone, 'Europe/Paris');
    await call(t, line.org, 'PATCH', `/v1/cells/${line.cell.id}`, { quiet_hours: null });
  });

  it("answers 404 for another organization's cell", async () => {
    const other = await activeLine(t);
    expectProblem(
      await call(t, other.org, 'PATCH', `/v1/cells/${line.cell.id}`, {
        quiet_hours: { start: '21:00', end: '08:00', time_zone: 'UTC' },
      }),
      404,
      'not_found',
    );
  });
});
