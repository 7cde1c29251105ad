import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { useApp, type TestApp } from '../../../../test/harness.ts';
import { inbound, queued } from '../../../../test/support/messages.ts';
import { consoleLine, getPage, listening, type ConsoleLine } from '../../../../test/support/console-conversations.ts';
import { signInConsole } from '../../../../test/support/console.ts';
import { parseCsv, storeInbound } from '../../../../test/support/console-messages.ts';
import { page } from '../../../../test/support/page.ts';
import { csvField } from './csv.ts';

const ALICE = '+14155550101';
const BOB = '+14155550102';
const DAY_MS = 24 * 60 * 60 * 1000;

/** The ids of the messages a results page lists (its links into their threads), in page order. */
const resultIds = (html: string) =>
  page(html)
    .queryAllByRole('link')
    .map((link) => link.getAttribute('href')?.match(/#message-(msg_[a-z0-9]+)$/)?.[1])
    .filter((id) => id !== undefined);
const search = (t: TestApp, line: ConsoleLine, query: Record<string, string>) =>
  getPage(t, `/console/messages?${new URLSearchParams(query).toString()}`, line.signIn);
const day = (t: TestApp, offsetDays = 0) =>
  new Date(t.clock.now().getTime() + offsetDays * DAY_MS).toISOString().slice(0, 10);

describe('console message search and CSV export', () => {
  const t = useApp();
  before(async () => {
    await listening(t);
  });

  it('finds messages by participant, text, status, days and cell, and never another organization’s', async () => {
    let line = await consoleLine(t);
    const other = await consoleLine(t);
    const firstDay = day(t);
    assert.equal((await inbound(t, line, { from: ALICE, body: 'Your code is 482913' })).statusCode, 201);
    const fromAlice = (await search(t, line, {})).body;
    const sale = await queued(t, line, { to: BOB, body: '50% off_today' });
    t.clock.advance(2 * DAY_MS);
    // Two days on, the session has ended: sign in again.
    line = { ...line, signIn: await signInConsole(t, line.org.email) };
    const lastDay = day(t);
    assert.equal((await inbound(t, line, { from: BOB, body: 'Hello THERE' })).statusCode, 201);
    assert.equal((await inbound(t, other, { from: ALICE, body: 'Hello there, from elsewhere' })).statusCode, 201);

    const all = await search(t, line, {});
    assert.equal(all.statusCode, 200);
    const results = page(all);
    assert.equal(results.document.title, 'Messages — Cellgate Console');
    results.getByRole('link', { name: 'Messages', current: 'page' });
    assert.equal(resultIds(all.body).length, 3, 'the three texts of this organization, not the other’s');
    assert.equal(results.queryByText(/from elsewhere/), null);
    assert.equal(resultIds(fromAlice).length, 1);

    const count = async (query: Record<string, string>) => {
      const page = await search(t, line, query);
      assert.equal(page.statusCode, 200, page.body);
      return resultIds(page.body).length;
    };
    // The number as people write it, normalized.
    assert.equal(await count({ participant: '+1 (415) 555-0101' }), 1);
    assert.equal(await count({ participant: BOB }), 2);
    // Text: without regard to case; % and _ are characters, not wildcards.
    assert.equal(await count({ text: 'hello there' }), 1);
    assert.equal(await count({ text: '50%' }), 1);
    assert.equal(await count({ text: '_' }), 1);
    assert.equal(await count({ text: '%' }), 1);
    assert.equal(await count({ status: 'queued' }), 1);
    assert.equal(await count({ status: 'received' }), 2);
    assert.equal(await count({ status: 'delivered' }), 0);
    // Days in UTC, both ends included.
    assert.equal(await count({ from: lastDay }), 1);
    assert.equal(await count({ to: firstDay }), 2);
    assert.equal(await count({ from: firstDay, to: firstDay }), 2);
    assert.equal(await count({ from: firstDay, to: lastDay }), 3);
    assert.equal(await count({ cell: line.cell.id, participant: BOB, status: 'queued', text: 'OFF' }), 1);
    const none = page(await search(t, line, { text: 'nothing like this' }));
    none.getByText('No messages match this search.');
    assert.equal(none.queryByRole('link', { name: /Export all matches/ }), null);

    // Each match links to its place in the thread; the form keeps what was typed.
    const found = page(await search(t, line, { participant: BOB, text: 'off' }));
    const matches = found.within(found.getByRole('table', { name: /^Matching messages, newest first/ }));
    assert.equal(
      matches.href('+1 415 555 0102'),
      `/console/cells/${line.cell.id}/conversations/%2B14155550102#message-${sale.id}`,
    );
    assert.equal(found.valueOf('Text contains'), 'off');
    assert.equal(found.valueOf('Status'), '', 'any status');
    // The export link carries the same search.
    const exported = found.getByRole('link', { name: 'Export all matches as CSV' });
    assert.equal(exported.getAttribute('href'), '/console/messages/export.csv?participant=%2B14155550102&text=off');
    assert.ok(exported.hasAttribute('download'));
  });

  it('pages through many matches with a cursor', async () => {
    const line = await consoleLine(t);
    await storeInbound(t, line, 55, ALICE, 'bulk');
    const first = await search(t, line, { text: 'bulk' });
    const ids = resultIds(first.body);
    assert.equal(ids.length, 50);
    const next = page(first).href('Older matches');
    assert.match(next, /text=bulk/);
    const second = await getPage(t, next, line.signIn);
    assert.equal(second.statusCode, 200);
    const rest = resultIds(second.body);
    assert.equal(rest.length, 5);
    assert.equal(page(second).queryByRole('link', { name: 'Older matches' }), null);
    const every = [...ids, ...rest];
    assert.equal(new Set(every).size, 55);
    assert.deepEqual(every, [...every].sort().reverse(), 'newest first across pages');
  });

  it('exports every match as a streamed CSV attachment with quoting and a formula guard', async () => {
    const line = await consoleLine(t);
    const bodies = [
      'Call me, "now"\nplease',
      '=HYPERLINK("http://evil.example","x")',
      '+1 sure',
      '-2 degrees',
      '@SUM(A1)',
      'plain',
    ];
    for (const body of bodies) {
      assert.equal((await inbound(t, line, { from: ALICE, body })).statusCode, 201);
      t.clock.advance(1);
    }
    // Over a real connection, as a browser downloads it.
    const { port } = t.app.server.address() as AddressInfo;
    const response = await fetch(
      `http://127.0.0.1:${port}/console/messages/export.csv?participant=${encodeURIComponent(ALICE)}`,
      {
        headers: line.signIn.headers,
      },
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.match(
      String(response.headers.get('content-disposition')),
      /^attachment; filename="cellgate-messages-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    // Streamed: no length known up front.
    assert.equal(response.headers.get('content-length'), null);
    assert.equal(response.headers.get('transfer-encoding'), 'chunked');
    assert.equal(response.headers.get('cache-control'), 'no-store');
    const rows = parseCsv(await response.text());
    assert.deepEqual(rows[0].slice(0, 9), [
      'id',
      'created_at',
      'cell_id',
      'cell_name',
      'direction',
      'from',
      'to',
      'status',
      'body',
    ]);
    const byBody = rows.slice(1).map((row) => row[8]);
    // Newest first; formulas start with an apostrophe, plain text and E.164 numbers do not.
    assert.deepEqual(byBody, [
      'plain',
      "'@SUM(A1)",
      "'-2 degrees",
      "'+1 sure",
      '\'=HYPERLINK("http://evil.example","x")',
      'Call me, "now"\nplease',
    ]);
    assert.equal(rows[1][5], ALICE, 'a phone number stays a phone number');
    assert.equal(rows[1][3], 'Support line');
    assert.equal(rows[1][7], 'received');
  });

  it('exports more matches than one database page, each once, newest first', async () => {
    const line = await consoleLine(t);
    await storeInbound(t, line, 1201, BOB, 'volume');
    const response = await getPage(t, '/console/messages/export.csv?text=volume', line.signIn);
    assert.equal(response.statusCode, 200);
    const rows = parseCsv(response.body).slice(1);
    assert.equal(rows.length, 1201);
    const ids = rows.map((row) => row[0]);
    assert.equal(new Set(ids).size, 1201);
    assert.deepEqual(ids, [...ids].sort().reverse());
    assert.equal(rows[0][8], 'volume 1200');
    assert.equal(rows[1200][8], 'volume 0');
  });

  it('quotes CSV fields as RFC 4180 asks and guards formulas', () => {
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('two\r\nlines'), '"two\r\nlines"');
    assert.equal(csvField('=1+1'), "'=1+1");
    assert.equal(csvField('\tx'), "'\tx");
    assert.equal(csvField('=A1,B1'), '"\'=A1,B1"');
    assert.equal(csvField('+14155550101'), '+14155550101');
    assert.equal(csvField('+1415555010x'), "'+1415555010x");
    assert.equal(csvField(null), '');
    assert.equal(csvField(3), '3');
  });
});
