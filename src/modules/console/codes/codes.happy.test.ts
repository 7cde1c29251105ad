import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from '../../../../test/harness.ts';
import { createCell } from '../../../../test/support/cells.ts';
import { inbound } from '../../../../test/support/messages.ts';
import {
  consoleLine,
  getPage,
  listening,
  LiveClient,
  liveUrlOf,
} from '../../../../test/support/console-conversations.ts';
import { page as read } from '../../../../test/support/page.ts';

const GOOGLE = '+14155550111';

describe('console codes page', () => {
  const t = useApp();
  before(async () => {
    await listening(t);
  });

  it('shows each cell’s latest codes, newest first, and none of another organization’s', async () => {
    const line = await consoleLine(t);
    const other = await consoleLine(t);
    const quiet = await createCell(t, line.org.headers, 'Quiet line');
    const text = (body: string) => inbound(t, line, { from: GOOGLE, body });
    assert.equal((await text('G-482913 is your Google verification code.')).statusCode, 201);
    t.clock.advance(1000);
    assert.equal((await text('Your Uber code is 7391. Never share this code.')).statusCode, 201);
    t.clock.advance(1000);
    assert.equal((await text('See you at 5 pm, table for 4.')).statusCode, 201);
    assert.equal((await inbound(t, other, { from: GOOGLE, body: 'Your verification code is 555123' })).statusCode, 201);

    const page = await getPage(t, '/console/codes', line.signIn);
    assert.equal(page.statusCode, 200);
    const codes = read(page);
    assert.equal(codes.document.title, 'Verification codes — Cellgate Console');
    codes.getByRole('link', { name: 'Codes', current: 'page' });
    const rows = codes.rows('Latest codes received by Support line, newest first.');
    assert.deepEqual(
      rows.map(([code, service, from]) => [code, service, from]),
      [
        ['7391', 'Uber', '+1 415 555 0111'],
        ['482913', 'Google', '+1 415 555 0111'],
      ],
      'newest first; the text without a code and the other organization’s are not codes here',
    );
    const [link] = codes.getAllByRole('link', { name: '+1 415 555 0111' });
    assert.match(
      link.getAttribute('href') ?? '',
      new RegExp(`^/console/cells/${line.cell.id}/conversations/%2B14155550111#message-msg_`),
    );
    // The cell with no codes says so.
    const quietSection = codes.section(/^Quiet line /);
    assert.equal(quietSection.getByText(/^No codes yet/).hidden, false);
    assert.equal(quietSection.queryByRole('table'), null);
    // Live, and complete without the script.
    assert.match(liveUrlOf(page.body), /^\/console\/codes\/live\?after=\d+$/);
    // Released, so the next test's phone goes to its own new cell rather than to this waiting one.
    const released = await t.app.inject({ method: 'DELETE', url: `/v1/cells/${quiet.id}`, headers: line.org.headers });
    assert.equal(released.statusCode, 200);
  });

  it('tells the page live when a code arrives, and only then', async () => {
    const line = await consoleLine(t);
    const page = await getPage(t, '/console/codes', line.signIn);
    const live = await LiveClient.ready(t, liveUrlOf(page.body), line.signIn.headers);
    assert.equal((await inbound(t, line, { from: GOOGLE, body: 'Lunch at noon?' })).statusCode, 201);
    assert.equal((await inbound(t, line, { from: GOOGLE, body: 'Your verification code is 660021' })).statusCode, 201);
    await live.until(() => live.frames.some((f) => f.event === 'refresh'), 'the refresh frame');
    const changes = live.frames.filter((f) => f.event === 'refresh');
    assert.equal(changes.length, 1, 'the text without a code sends nothing');
    assert.equal(changes[0].data.cell_id, line.cell.id);
    assert.equal(changes[0].data.announce, 'New code from +1 415 555 0111.');
    live.close();
    // What the page shows after the frame: the new code.
    read(await getPage(t, '/console/codes', line.signIn)).getByText('660021');
  });

  it('answers the live stream 401 without a session and 400 for a bad position; the page sends a signed-out browser to sign in', async () => {
    const line = await consoleLine(t);
    const unsigned = await LiveClient.open(t, '/console/codes/live', {});
    assert.equal(unsigned.status, 401);
    unsigned.close();
    const bad = await LiveClient.open(t, '/console/codes/live?after=x', line.signIn.headers);
    assert.equal(bad.status, 400);
    bad.close();
    const page = await getPage(t, '/console/codes');
    assert.equal(page.statusCode, 303);
    assert.equal(page.headers.location, '/console/sign-in?next=%2Fconsole%2Fcodes');
  });
});
