import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from '../../../../test/harness.ts';
import { consoleLine, getPage, type ConsoleLine } from '../../../../test/support/console-conversations.ts';
import { descriptionOf, page as read } from '../../../../test/support/page.ts';

const url = (path: string, query: Record<string, string>) => `${path}?${new URLSearchParams(query).toString()}`;

describe('console message search: bad input', () => {
  const t = useApp();
  let line: ConsoleLine;
  let other: ConsoleLine;
  before(async () => {
    line = await consoleLine(t);
    other = await consoleLine(t);
  });

  const cases: [string, Record<string, string>, string, RegExp][] = [
    ['a number without its country code', { participant: '415-555-0101' }, 'Phone number', /international form/],
    ['a number too short', { participant: '+1415' }, 'Phone number', /international form/],
    ['a date that does not exist', { from: '2026-02-31' }, 'From (day)', /Enter a date like/],
    ['a word for a date', { to: 'yesterday' }, 'To (day)', /Enter a date like/],
    ['a date in another order', { from: '21/11/2026' }, 'From (day)', /Enter a date like/],
    ['an unknown status', { status: 'lost' }, 'Status', /Choose one of the statuses/],
    ['an end before the start', { from: '2026-11-21', to: '2026-11-20' }, 'To (day)', /before the start date/],
    ['a text too long', { text: 'x'.repeat(201) }, 'Text contains', /too long \(at most 200 characters\)/],
  ];
  for (const [name, query, label, message] of cases) {
    for (const path of ['/console/messages', '/console/messages/export.csv'])
      it(`answers ${name} with the form and its error (${path})`, async () => {
        const page = await getPage(t, url(path, query), line.signIn);
        assert.equal(page.statusCode, 400);
        assert.match(String(page.headers['content-type']), /^text\/html/);
        const refused = read(page);
        assert.equal(refused.document.title, 'Error: Messages — Cellgate Console');
        // The error is announced with its field.
        const field = refused.getByLabelText(label);
        assert.equal(field.getAttribute('aria-invalid'), 'true');
        assert.match(descriptionOf(field), message);
        refused.getByText(/The search was not run/);
        assert.equal(refused.queryByRole('table'), null, 'no results');
        assert.equal(refused.queryByRole('link', { name: /Export all matches/ }), null);
      });
  }

  it('keeps what was typed when it answers with errors', async () => {
    const page = await getPage(
      t,
      url('/console/messages', { participant: '<b>', text: 'fine', status: 'lost' }),
      line.signIn,
    );
    assert.equal(page.statusCode, 400);
    assert.match(page.body, /<input id="participant" name="participant" type="tel" value="&#60;b&#62;"/);
    const refused = read(page);
    assert.equal(refused.valueOf('Phone number'), '<b>');
    assert.equal(refused.valueOf('Text contains'), 'fine');
  });

  it('answers 404 for another organization’s cell and an unknown one, on the search and the export', async () => {
    for (const cell of [other.cell.id, 'cell_01jdx3a1b2c3d4e5f6g7h8j9k0'])
      for (const path of ['/console/messages', '/console/messages/export.csv']) {
        const page = await getPage(t, url(path, { cell }), line.signIn);
        assert.equal(page.statusCode, 404, `${path} ${cell}`);
        read(page).getByRole('heading', { level: 1, name: 'Cell not found' });
      }
  });

  it('answers 400 for a forged cursor', async () => {
    const page = await getPage(t, url('/console/messages', { cursor: 'not-a-cursor' }), line.signIn);
    assert.equal(page.statusCode, 400);
    read(page).getByText(/This list link is not valid/);
  });

  it('sends a signed-out browser to sign in, and back', async () => {
    for (const path of ['/console/messages?text=x', '/console/messages/export.csv']) {
      const page = await getPage(t, path);
      assert.equal(page.statusCode, 303);
      assert.equal(page.headers.location, `/console/sign-in?next=${encodeURIComponent(path)}`);
    }
  });
});
