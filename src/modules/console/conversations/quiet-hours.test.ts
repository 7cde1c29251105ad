import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from '../../../../test/harness.ts';
import { postForm } from '../../../../test/support/console.ts';
import { consoleLine, getPage, type ConsoleLine } from '../../../../test/support/console-conversations.ts';
import { descriptionOf, page as read, textOf, type Part } from '../../../../test/support/page.ts';

/** What the quiet hours section says they are now. */
const now = (section: Part) => textOf(section.getByText(/\bNow:/));

describe('console quiet hours of a cell', () => {
  const t = useApp();
  let line: ConsoleLine;
  let other: ConsoleLine;
  before(async () => {
    line = await consoleLine(t);
    other = await consoleLine(t);
  });

  const post = (fields: Record<string, string>, signIn = line.signIn, cellId = line.cell.id) =>
    postForm(t, `/console/cells/${cellId}/quiet-hours`, { csrf_token: signIn.csrf, ...fields }, signIn.headers);
  const apiQuietHours = async () =>
    (await t.app.inject({ url: `/v1/cells/${line.cell.id}`, headers: line.org.headers })).json().quiet_hours;

  it('sets quiet hours through the cell update, shows them on the cell page, and clears them', async () => {
    const quietHours = async () =>
      read(await getPage(t, `/console/cells/${line.cell.id}`, line.signIn)).section('Quiet hours');
    let section = await quietHours();
    assert.match(now(section), / Now: None\.$/);
    assert.equal(section.queryByRole('button', { name: 'Clear quiet hours' }), null);

    const saved = await post({ start: '21:00', end: '08:00', time_zone: 'America/New_York' });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(saved.headers.location, `/console/cells/${line.cell.id}#quiet-hours`);
    assert.deepEqual(await apiQuietHours(), { start: '21:00', end: '08:00', time_zone: 'America/New_York' });
    section = await quietHours();
    assert.match(now(section), / Now: 21:00 to 08:00, America\/New_York\.$/);
    assert.deepEqual(
      [section.valueOf('Start'), section.valueOf('End'), section.valueOf('Time zone')],
      ['21:00', '08:00', 'America/New_York'],
    );
    section.getByRole('button', { name: 'Clear quiet hours' });

    // A browser's time with seconds, and a zone link Intl knows.
    assert.equal((await post({ start: '22:30:00', end: '06:15', time_zone: 'Asia/Calcutta' })).statusCode, 303);
    assert.deepEqual(await apiQuietHours(), { start: '22:30', end: '06:15', time_zone: 'Asia/Calcutta' });

    const cleared = await post({ action: 'clear' });
    assert.equal(cleared.statusCode, 303);
    assert.equal(await apiQuietHours(), null);
  });

  const bad: [string, Record<string, string>, string, RegExp][] = [
    ['an empty start', { start: '', end: '08:00', time_zone: 'UTC' }, 'Start', /the start as a 24-hour time/],
    ['an hour past 23', { start: '25:00', end: '08:00', time_zone: 'UTC' }, 'Start', /the start as a 24-hour time/],
    ['a time in words', { start: '21:00', end: '8am', time_zone: 'UTC' }, 'End', /the end as a 24-hour time/],
    ['the same start and end', { start: '08:00', end: '08:00', time_zone: 'UTC' }, 'End', /must differ from the start/],
    ['an unknown zone', { start: '21:00', end: '08:00', time_zone: 'Mars/Olympus' }, 'Time zone', /IANA name/],
    ['a bare offset', { start: '21:00', end: '08:00', time_zone: '+05:00' }, 'Time zone', /IANA name/],
    ['no zone', { start: '21:00', end: '08:00', time_zone: '' }, 'Time zone', /IANA name/],
  ];
  for (const [name, fields, label, message] of bad)
    it(`answers ${name} with the form and the error on its field, changing nothing`, async () => {
      const response = await post(fields);
      assert.equal(response.statusCode, 400);
      const refused = read(response);
      assert.equal(refused.document.title, 'Error: Quiet hours of Support line — Cellgate Console');
      // The error is announced with its field, after the hint.
      const field = refused.getByLabelText(label);
      assert.equal(field.getAttribute('aria-invalid'), 'true');
      const [hint, ...error] = (field.getAttribute('aria-describedby') ?? '').split(' ');
      assert.ok(hint.endsWith('-hint') && error.length === 1, 'the hint, then the error');
      assert.match(descriptionOf(field), message);
      // What was typed stays in the form.
      assert.equal(refused.valueOf('Time zone'), fields.time_zone);
      assert.equal(await apiQuietHours(), null);
    });

  it('refuses a post without the CSRF token or with another, from another site, and signed out', async () => {
    const fields = { start: '21:00', end: '08:00', time_zone: 'UTC' };
    const url = `/console/cells/${line.cell.id}/quiet-hours`;
    assert.equal((await postForm(t, url, fields, line.signIn.headers)).statusCode, 403);
    assert.equal(
      (await postForm(t, url, { ...fields, csrf_token: other.signIn.csrf }, line.signIn.headers)).statusCode,
      403,
    );
    assert.equal(
      (
        await postForm(
          t,
          url,
          { ...fields, csrf_token: line.signIn.csrf },
          { ...line.signIn.headers, origin: 'https://evil.example' },
        )
      ).statusCode,
      403,
    );
    assert.equal((await postForm(t, url, { ...fields, csrf_token: line.signIn.csrf })).statusCode, 401);
    assert.equal(await apiQuietHours(), null);
  });

  it('answers 404 for another organization’s cell, changing nothing', async () => {
    const page = await post({ start: '21:00', end: '08:00', time_zone: 'UTC' }, line.signIn, other.cell.id);
    assert.equal(page.statusCode, 404);
    read(page).getByRole('heading', { level: 1, name: 'Cell not found' });
    const theirs = await t.app.inject({ url: `/v1/cells/${other.cell.id}`, headers: other.org.headers });
    assert.equal(theirs.json().quiet_hours, null);
  });
});
