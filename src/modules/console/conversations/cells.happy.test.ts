import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { transact } from '../../../db/transaction.ts';
import { startApp, useApp } from '../../../../test/harness.ts';
import { createCell } from '../../../../test/support/cells.ts';
import { claim, inbound, queued, report } from '../../../../test/support/messages.ts';
import {
  apiMessages,
  consoleLine,
  getPage,
  listening,
  LiveClient,
  liveUrlOf,
  postSend,
  threadIds,
  threadUrl,
} from '../../../../test/support/console-conversations.ts';
import { page as read, textOf } from '../../../../test/support/page.ts';

const PARTICIPANT = '+14155550199';
/** A node's text with the times it shows (the clock's) written as `<time>`. */
const untimed = (node: Node | null) => textOf(node).replace(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/g, '<time>');

describe('console cells and conversations', () => {
  const t = useApp();
  before(async () => {
    await listening(t);
  });

  it('lists the cells with their number, phone presence and status', async () => {
    const line = await consoleLine(t);
    const waiting = await createCell(t, line.org.headers, 'Waiting <line>');
    const page = await getPage(t, '/console/cells', line.signIn);
    assert.equal(page.statusCode, 200);
    let cells = read(page);
    assert.equal(cells.document.title, 'Cells — Cellgate Console');
    cells.getByRole('link', { name: 'Cells', current: 'page' });
    assert.equal(cells.href('Support line'), `/console/cells/${line.cell.id}`);
    const number = `+1 415 555 ${line.device.phoneNumber.slice(-4)}`;
    const rowOf = (name: string) => cells.rows(/^The phone lines of /).find((row) => row[0].startsWith(name));
    assert.deepEqual(rowOf('Support line')?.slice(1), [number, '○ Offline', 'Active']);
    // The waiting cell: no phone yet, its name escaped.
    assert.match(page.body, new RegExp(`<a href="/console/cells/${waiting.id}">Waiting &#60;line&#62;</a>`));
    assert.equal(cells.href('Waiting <line>'), `/console/cells/${waiting.id}`);
    assert.deepEqual(rowOf('Waiting <line>')?.slice(1), ['None yet', 'No phone yet', 'Provisioning']);
    // Its page offers no send form, and says why; an active cell's page has one.
    const waitingPage = read(await getPage(t, `/console/cells/${waiting.id}`, line.signIn));
    assert.equal(waitingPage.queryByRole('textbox', { name: 'Message' }), null);
    waitingPage.getByText(/^This cell cannot send yet: it has no number until a phone is assigned to it\./);
    const activePage = read(await getPage(t, `/console/cells/${line.cell.id}`, line.signIn));
    activePage.getByRole('textbox', { name: 'Message' });
    assert.equal(activePage.queryByText(/cannot send yet/), null);

    // The phone calls in: online, with its number written readably.
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/v1/device/heartbeat', headers: line.device.headers, payload: {} }))
        .statusCode,
      200,
    );
    cells = read(await getPage(t, '/console/cells', line.signIn));
    const [, shown, presence] = rowOf('Support line') ?? [];
    assert.equal(shown, number);
    assert.match(presence, /^● Online last seen \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    // Released, so the next test's phone goes to its own new cell rather than to this waiting one.
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/v1/cells/${waiting.id}`, headers: line.org.headers })).statusCode,
      200,
    );
  });

  it('shows a thread oldest first and newest last, each message with its status in words', async () => {
    const line = await consoleLine(t);
    const first = await queued(t, line, { to: PARTICIPANT, body: 'Your table is ready.' });
    t.clock.advance(1000);
    const second = await queued(t, line, { to: PARTICIPANT, body: 'See you <soon> & bye' });
    const [claimedFirst] = await claim(t, line, '?limit=1');
    assert.equal(claimedFirst.id, first.id);
    assert.equal((await report(t, line, first.id, { event: 'sent' })).statusCode, 200);
    assert.equal((await report(t, line, first.id, { event: 'delivered' })).statusCode, 200);
    t.clock.advance(1000);
    assert.equal((await inbound(t, line, { from: PARTICIPANT, body: 'Thanks!\nOn my way.' })).statusCode, 201);
    const received = (await apiMessages(t, line))[0];

    const page = await getPage(t, threadUrl(line.cell.id, PARTICIPANT), line.signIn);
    assert.equal(page.statusCode, 200);
    const thread = read(page);
    assert.equal(thread.document.title, '+1 415 555 0199 — Support line — Cellgate Console');
    // The other party and the cell's own number, each under its own label.
    assert.equal(thread.definition('Other party'), '+1 415 555 0199');
    assert.equal(thread.definition("This cell's number"), `+1 415 555 ${line.device.phoneNumber.slice(-4)}`);
    // A polite live log; its list names the participant for the live script.
    const log = thread.getByRole('log', { name: 'Messages with +1 415 555 0199' });
    assert.equal(log.getAttribute('aria-live'), 'polite');
    assert.equal(log.querySelector('ol')?.dataset.participant, PARTICIPANT);
    assert.deepEqual(threadIds(page.body), [first.id, second.id, received.id]);
    const said = thread.within(log).getAllByRole('listitem').map(untimed);
    assert.deepEqual(said, [
      'You <time> Your table is ready. ✓✓ Delivered',
      'You <time> See you <soon> & bye ◷ Queued',
      '+1 415 555 0199 <time> Thanks! On my way. ↓ Received',
    ]);
    assert.equal(thread.getByText(/^Thanks!/).textContent, 'Thanks!\nOn my way.', 'the line break is kept');
    assert.match(page.body, /See you &#60;soon&#62; &#38; bye/, 'the body is escaped');
    assert.ok(thread.document.querySelector('script[type="module"][src="/console/cells.js"]'), 'the live script');
    thread.getByRole('textbox', { name: 'Message to +1 415 555 0199' });

    // The cell page lists the conversation with its latest message.
    const cellPage = await getPage(t, `/console/cells/${line.cell.id}`, line.signIn);
    assert.equal(cellPage.statusCode, 200);
    const cell = read(cellPage);
    const conversation = cell.getByRole('link', { name: /^\+1 415 555 0199\s/ }).closest('li');
    assert.equal(untimed(conversation), '+1 415 555 0199 Thanks! On my way. <time> ↓ Received');
    // The live script finds the row by its id and knows its latest message.
    assert.deepEqual([conversation?.id, conversation?.dataset.last], ['conversation-14155550199', received.id]);
    cell.getByRole('textbox', { name: 'To' });
  });

  it('sends from the form through the messages service and shows the queued message in the thread', async () => {
    const line = await consoleLine(t);
    const sent = await postSend(t, line, { to: '+1 (415) 555-0142', body: 'Hello from the console\r\nSecond line' });
    assert.equal(sent.statusCode, 303, sent.body);
    const [message] = await apiMessages(t, line);
    assert.equal(message.to, '+14155550142');
    assert.equal(message.body, 'Hello from the console\nSecond line');
    assert.equal(message.status, 'queued');
    assert.equal(sent.headers.location, `${threadUrl(line.cell.id, '+14155550142')}#message-${message.id}`);
    const thread = await getPage(t, String(sent.headers.location).split('#')[0], line.signIn);
    assert.deepEqual(threadIds(thread.body), [message.id]);
    const item = read(thread)
      .getByText(/^Hello from the console/)
      .closest('li');
    assert.match(textOf(item), /Hello from the console Second line ◷ Queued$/);

    // A reply from the thread's form goes to the same number.
    const reply = await t.app.inject({
      method: 'POST',
      url: `${threadUrl(line.cell.id, '+14155550142')}/messages`,
      headers: { ...line.signIn.headers, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ csrf_token: line.signIn.csrf, body: 'And a reply' }).toString(),
    });
    assert.equal(reply.statusCode, 303, reply.body);
    const [replied] = await apiMessages(t, line);
    assert.equal(replied.to, '+14155550142');
    assert.equal(replied.body, 'And a reply');
  });

  it('sends a form submitted twice once: its send_id is an idempotency key; other text under it is refused', async () => {
    const line = await consoleLine(t);
    const page = await getPage(t, `/console/cells/${line.cell.id}`, line.signIn);
    const sendId = read(page).hidden('send_id');
    assert.match(sendId ?? '', /^[A-Za-z0-9]{22}$/, 'the form carries a send_id');
    assert.ok(sendId);
    const again = await getPage(t, `/console/cells/${line.cell.id}`, line.signIn);
    assert.ok(!again.body.includes(sendId), 'each render mints its own');

    const fields = { to: PARTICIPANT, body: 'Only once, please', send_id: sendId };
    const first = await postSend(t, line, fields);
    const second = await postSend(t, line, fields);
    assert.equal(first.statusCode, 303, first.body);
    assert.equal(second.statusCode, 303, second.body);
    assert.equal(second.headers.location, first.headers.location, 'the same message');
    assert.equal(
      (await apiMessages(t, line, '?direction=outbound')).filter((m) => m.body === 'Only once, please').length,
      1,
    );

    const edited = await postSend(t, line, { ...fields, body: 'Something else' });
    assert.equal(edited.statusCode, 409);
    const refused = read(edited);
    assert.match(textOf(refused.getByRole('alert')), /^This form was already sent with other text/);
    assert.equal(refused.valueOf('Message'), 'Something else', 'what was typed is kept');
    assert.notEqual(refused.hidden('send_id'), sendId, 'the form comes back with a new send_id');
    assert.equal(
      (await apiMessages(t, line, '?direction=outbound')).filter((m) => m.body === 'Something else').length,
      0,
    );
  });

  it('accepts 1600 characters of any script (the form-encoded body is larger than 8 KiB)', async () => {
    const line = await consoleLine(t);
    const body = 'ж'.repeat(1600);
    const sent = await postSend(t, line, { to: PARTICIPANT, body });
    assert.equal(sent.statusCode, 303, sent.body.slice(0, 300));
    assert.equal((await apiMessages(t, line))[0].body, body);
  });

  it('shows an inbound text from the device on the cell page and in its thread', async () => {
    const line = await consoleLine(t);
    assert.equal((await inbound(t, line, { from: '+14155550123', body: 'Is anyone there?' })).statusCode, 201);
    const cellPage = read(await getPage(t, `/console/cells/${line.cell.id}`, line.signIn));
    const conversation = cellPage.section('Conversations');
    assert.equal(conversation.href(/^\+1 415 555 0123\sIs anyone there\?\s/), threadUrl(line.cell.id, '+14155550123'));
    // The device's call brought it online; the page says so in words.
    assert.match(cellPage.definition('Phone'), /^● Online /);
    const thread = read(await getPage(t, threadUrl(line.cell.id, '+14155550123'), line.signIn));
    const item = thread.getByText('Is anyone there?').closest('li');
    assert.match(textOf(item), /Is anyone there\? ↓ Received$/);
  });

  it("streams an inbound text and the status changes of the cell's messages live, then releases the subscription on disconnect", async () => {
    const line = await consoleLine(t);
    const page = await getPage(t, threadUrl(line.cell.id, PARTICIPANT), line.signIn);
    const subscribers = t.services.events.feed.subscriberCount();
    const live = await LiveClient.ready(t, liveUrlOf(page.body), line.signIn.headers);
    assert.equal(t.services.events.feed.subscriberCount(), subscribers + 1);

    assert.equal((await inbound(t, line, { from: PARTICIPANT, body: 'Live hello' })).statusCode, 201);
    const arrived = await live.messageUpdate(
      (f) => String(f.data.thread).includes('Live hello'),
      'the inbound message',
    );
    assert.equal(arrived.data.participant, PARTICIPANT);
    const item = read(String(arrived.data.thread)).getByRole('listitem');
    assert.match(textOf(item), /^\+1 415 555 0199 .* Live hello ↓ Received$/);
    // The live script replaces the conversation's row by its id.
    assert.equal(read(String(arrived.data.conversation)).getByRole('listitem').id, 'conversation-14155550199');
    assert.equal(arrived.data.announce, 'New message from +1 415 555 0199.');
    assert.match(String(arrived.id), /^\d+$/);

    const sent = await queued(t, line, { to: PARTICIPANT, body: 'Live reply' });
    await claim(t, line);
    assert.equal((await report(t, line, sent.id, { event: 'sent' })).statusCode, 200);
    assert.equal((await report(t, line, sent.id, { event: 'delivered' })).statusCode, 200);
    const delivered = await live.messageUpdate(
      (f) => f.data.id === sent.id && String(f.data.thread).includes('Delivered'),
      'the delivered status',
    );
    const reply = read(String(delivered.data.thread)).getByRole('listitem');
    assert.equal(reply.id, `message-${sent.id}`);
    assert.match(textOf(reply), /^You .* Live reply ✓✓ Delivered$/);

    live.close();
    await live.until(() => live.ended, 'the hang-up');
    const deadline = performance.now() + 5000;
    while (t.services.events.feed.subscriberCount() !== subscribers && performance.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(t.services.events.feed.subscriberCount(), subscribers, 'the subscription is released');
  });

  it('replays what happened between the page and the stream (and after a reconnect), without gaps', async () => {
    const line = await consoleLine(t);
    const page = await getPage(t, `/console/cells/${line.cell.id}`, line.signIn);
    // Texts that arrive after the page was rendered but before its script connects.
    assert.equal((await inbound(t, line, { from: PARTICIPANT, body: 'While loading 1' })).statusCode, 201);
    assert.equal((await inbound(t, line, { from: '+14155550124', body: 'While loading 2' })).statusCode, 201);
    const live = await LiveClient.ready(t, liveUrlOf(page.body), line.signIn.headers);
    const replayed = live.frames
      .filter((f) => f.event === 'message-update')
      .map((f) => String(f.data.thread).match(/While loading \d/)?.[0]);
    assert.deepEqual(replayed, ['While loading 1', 'While loading 2']);
    const lastId = live.frames.filter((f) => f.id).at(-1)?.id as string;
    live.close();

    // Reconnecting with Last-Event-ID gets what came since, and nothing before it.
    assert.equal((await inbound(t, line, { from: PARTICIPANT, body: 'While away' })).statusCode, 201);
    const again = await LiveClient.ready(t, liveUrlOf(page.body), { ...line.signIn.headers, 'last-event-id': lastId });
    const bodies = again.frames
      .filter((f) => f.event === 'message-update')
      .map((f) => String(f.data.thread).match(/While \w+( \d)?/)?.[0]);
    assert.deepEqual(bodies, ['While away']);
    again.close();
  });

  it('streams the cells list live: a phone coming online replaces its row, a new cell joins at the top', async () => {
    const line = await consoleLine(t);
    const page = await getPage(t, '/console/cells', line.signIn);
    assert.match(liveUrlOf(page.body), /^\/console\/cells\/live\?after=\d+$/);
    assert.ok(read(page).document.getElementById(`cell-row-${line.cell.id}`), 'the row the live script replaces');
    const live = await LiveClient.ready(t, liveUrlOf(page.body), line.signIn.headers);
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/v1/device/heartbeat', headers: line.device.headers, payload: {} }))
        .statusCode,
      200,
    );
    await live.until(
      () =>
        live.frames.some(
          (f) => f.event === 'cell-row' && f.data.id === line.cell.id && String(f.data.row).includes('Online'),
        ),
      'the online row',
    );
    const waiting = await createCell(t, line.org.headers, 'Second line');
    await live.until(
      () => live.frames.some((f) => f.event === 'cell-row' && f.data.id === waiting.id),
      "the new cell's row",
    );
    const row = read(`<table>${String(live.frames.find((f) => f.data.id === waiting.id)?.data.row)}</table>`);
    assert.equal(row.getByRole('row').id, `cell-row-${waiting.id}`);
    row.getByRole('rowheader', { name: /^Second line / });
    assert.ok(
      live.frames.every((f) => f.event !== 'message-update'),
      'the list hears cell events only',
    );
    live.close();
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/v1/cells/${waiting.id}`, headers: line.org.headers })).statusCode,
      200,
    );
  });

  it('asks the page to reload its parts when too much happened to replay', async () => {
    const line = await consoleLine(t);
    const page = await getPage(t, `/console/cells/${line.cell.id}`, line.signIn);
    const cell = (await t.app.inject({ url: `/v1/cells/${line.cell.id}`, headers: line.org.headers })).json();
    await transact(t.database.db, async (tx) => {
      for (let i = 0; i < 500; i++)
        await t.services.events.emit(tx, { organizationId: line.org.organizationId, type: 'cell.updated', data: cell });
    });
    const live = await LiveClient.ready(t, liveUrlOf(page.body), line.signIn.headers);
    assert.deepEqual(
      live.frames.map((f) => f.event),
      ['resync', 'ready'],
    );
    assert.equal(live.frames[0].id, live.frames[1].id, 'a reconnect resumes after the skipped events');
    live.close();
  });

  it("serves the page script as a module script of the console's own origin", async () => {
    const script = await t.app.inject({ method: 'GET', url: '/console/cells.js' });
    assert.equal(script.statusCode, 200);
    assert.match(String(script.headers['content-type']), /^text\/javascript/);
    assert.equal(script.headers['x-content-type-options'], 'nosniff');
    assert.match(script.body, /new EventSource\(url\)/);
  });

  it('ends open live streams when the server closes (they would hold its close otherwise)', async () => {
    const own = await startApp();
    await listening(own);
    const ownLine = await consoleLine(own);
    const page = await getPage(own, `/console/cells/${ownLine.cell.id}`, ownLine.signIn);
    const live = await LiveClient.ready(own, liveUrlOf(page.body), ownLine.signIn.headers);
    await own.close();
    await live.until(() => live.ended, 'the end of the stream');
  });

  it("streams the cell's state when its phone comes back", async () => {
    const line = await consoleLine(t);
    const page = await getPage(t, `/console/cells/${line.cell.id}`, line.signIn);
    const live = await LiveClient.ready(t, liveUrlOf(page.body), line.signIn.headers);
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/v1/device/heartbeat', headers: line.device.headers, payload: {} }))
        .statusCode,
      200,
    );
    await live.until(() => live.frames.some((f) => f.event === 'cell-update'), 'the cell update');
    const update = live.frames.find((f) => f.event === 'cell-update');
    const state = read(String(update?.data.state));
    assert.ok(state.document.getElementById('cell-state'), 'the part the live script replaces');
    assert.match(state.definition('Phone'), /^● Online /);
    live.close();
  });
});
