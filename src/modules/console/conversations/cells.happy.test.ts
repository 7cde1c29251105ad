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

const PARTICIPANT = '+14155550199';

describe('console cells and conversations', () => {
  const t = useApp();
  before(async () => {
    await listening(t);
  });

  it('lists the cells with their number, phone presence and status', async () => {
    const line = await consoleLine(t);
    const waiting = await createCell(t, line.org.headers, 'Waiting <line>');
    let page = await getPage(t, '/console/cells', line.signIn);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<title>Cells — Cellgate Console<\/title>/);
    assert.match(page.body, /<a href="\/console\/cells" aria-current="page">Cells<\/a>/);
    assert.match(page.body, new RegExp(`<a href="/console/cells/${line.cell.id}">Support line</a>`));
    assert.match(page.body, /<span class="presence offline"><span aria-hidden="true">○<\/span> Offline<\/span>/);
    assert.match(page.body, /<span class="cell-status cell-active">Active<\/span>/);
    // The waiting cell: no phone yet, its name escaped.
    assert.match(page.body, new RegExp(`<a href="/console/cells/${waiting.id}">Waiting &#60;line&#62;</a>`));
    assert.match(page.body, /<span class="cell-status cell-provisioning">Provisioning<\/span>/);
    assert.match(page.body, /No phone yet/);
    // Its page offers no send form, and says why; an active cell's page has one.
    const waitingPage = await getPage(t, `/console/cells/${waiting.id}`, line.signIn);
    assert.doesNotMatch(waitingPage.body, /<textarea/);
    assert.match(waitingPage.body, /This cell cannot send yet: it has no number until a phone is assigned to it\./);
    const activePage = await getPage(t, `/console/cells/${line.cell.id}`, line.signIn);
    assert.match(activePage.body, /<textarea/);
    assert.doesNotMatch(activePage.body, /cannot send yet/);

    // The phone calls in: online, with its number written readably.
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/v1/device/heartbeat', headers: line.device.headers, payload: {} }))
        .statusCode,
      200,
    );
    page = await getPage(t, '/console/cells', line.signIn);
    assert.match(
      page.body,
      /<span class="presence online"><span aria-hidden="true">●<\/span> Online<\/span> <span class="small">last seen <time datetime=/,
    );
    assert.match(page.body, new RegExp(`<span class="mono">\\+1 415 555 ${line.device.phoneNumber.slice(-4)}</span>`));
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
    assert.match(page.body, /<title>\+1 415 555 0199 — Support line — Cellgate Console<\/title>/);
    // The other party and the cell's own number, each under its own label.
    assert.match(page.body, /<dt>Other party<\/dt><dd><span class="mono">\+1 415 555 0199<\/span><\/dd>/);
    assert.match(
      page.body,
      new RegExp(
        `<dt>This cell's number</dt><dd><span class="mono">\\+1 415 555 ${line.device.phoneNumber.slice(-4)}</span></dd>`,
      ),
    );
    assert.deepEqual(threadIds(page.body), [first.id, second.id, received.id]);
    assert.match(
      page.body,
      /<div role="log" aria-live="polite" aria-label="Messages with \+1 415 555 0199">\n<ol id="thread" class="thread" data-participant="\+14155550199">/,
    );
    assert.match(
      page.body,
      new RegExp(
        `id="message-${first.id}"[^]*?<span class="msg-status msg-delivered"><span aria-hidden="true">✓✓</span> Delivered</span>`,
      ),
    );
    assert.match(
      page.body,
      new RegExp(`id="message-${second.id}"[^]*?See you &#60;soon&#62; &#38; bye[^]*?Queued</span>`),
    );
    assert.match(
      page.body,
      new RegExp(
        `id="message-${received.id}" class="message inbound"[^]*?<span class="message-who">\\+1 415 555 0199</span>[^]*?Thanks!\nOn my way.[^]*?Received</span>`,
      ),
    );
    assert.match(page.body, /<script type="module" src="\/console\/cells.js"><\/script>/);
    assert.match(page.body, /<label for="body">Message to \+1 415 555 0199<\/label>/);

    // The cell page lists the conversation with its latest message.
    const cellPage = await getPage(t, `/console/cells/${line.cell.id}`, line.signIn);
    assert.equal(cellPage.statusCode, 200);
    assert.match(
      cellPage.body,
      new RegExp(`<li id="conversation-14155550199" class="conversation" data-last="${received.id}">`),
    );
    assert.match(
      cellPage.body,
      /<span class="conversation-who">\+1 415 555 0199<\/span>\n<span class="conversation-preview">Thanks!\nOn my way.<\/span>/,
    );
    assert.match(cellPage.body, /<label for="to">To<\/label>/);
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
    assert.match(thread.body, /Hello from the console\nSecond line[^]*?Queued<\/span>/);

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
    const sendId = page.body.match(/<input type="hidden" name="send_id" value="([A-Za-z0-9]{22})">/)?.[1];
    assert.ok(sendId, 'the form carries a send_id');
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
    assert.match(edited.body, /This form was already sent with other text/);
    assert.match(edited.body, /Something else<\/textarea>/, 'what was typed is kept');
    assert.ok(!edited.body.includes(sendId), 'the form comes back with a new send_id');
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
    const cellPage = await getPage(t, `/console/cells/${line.cell.id}`, line.signIn);
    assert.match(
      cellPage.body,
      /<a href="\/console\/cells\/[^"]+\/conversations\/%2B14155550123"><span class="conversation-who">\+1 415 555 0123<\/span>/,
    );
    assert.match(cellPage.body, /Is anyone there\?/);
    // The device's call brought it online; the page says so in words.
    assert.match(cellPage.body, /<dt>Phone<\/dt><dd><span class="presence online">/);
    const thread = await getPage(t, threadUrl(line.cell.id, '+14155550123'), line.signIn);
    assert.match(
      thread.body,
      /Is anyone there\?<\/p>\n<p class="message-state"><span class="msg-status msg-received"><span aria-hidden="true">↓<\/span> Received<\/span>/,
    );
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
    assert.match(String(arrived.data.thread), /class="message inbound"[^]*Received/);
    assert.match(String(arrived.data.conversation), /<li id="conversation-14155550199" class="conversation"/);
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
    assert.match(String(delivered.data.thread), new RegExp(`<li id="message-${sent.id}" class="message outbound"`));

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
    assert.match(page.body, /data-live-url="\/console\/cells\/live\?after=\d+"/);
    assert.match(page.body, new RegExp(`<tr id="cell-row-${line.cell.id}">`));
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
    const row = String(live.frames.find((f) => f.data.id === waiting.id)?.data.row);
    assert.match(row, new RegExp(`^<tr id="cell-row-${waiting.id}">`));
    assert.match(row, /Second line/);
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
    assert.match(String(update?.data.state), /<div id="cell-state" class="cell-state">[^]*Online/);
    live.close();
  });
});
