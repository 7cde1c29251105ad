import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, type TestApp } from '../../../test/harness.ts';
import { eventsOf } from '../../../test/support/cells.ts';
import { activeLine, inbound, queued, type Line } from '../../../test/support/messages.ts';

/** Resolves once `count` code waits are in progress (the request reached its wait). */
async function waitsInProgress(t: TestApp, count: number) {
  const deadline = Date.now() + 5000;
  while (t.services.codes.activeWaits !== count) {
    if (Date.now() > deadline) throw new Error(`expected ${count} waits, have ${t.services.codes.activeWaits}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('verification codes', () => {
  const t = useApp();

  const codes = (line: Line, query = '') =>
    t.app.inject({ url: `/v1/cells/${line.cell.id}/codes${query}`, headers: line.org.headers });
  const received = async (line: Line, from: string, body: string) => {
    const response = await inbound(t, line, { from, body });
    assert.equal(response.statusCode, 201, response.body);
    return response.json();
  };

  it('stores the code of an inbound text on the message, its event and the codes list', async () => {
    const line = await activeLine(t);
    const message = await received(line, '+14155550123', 'G-482913 is your Google verification code.');
    assert.equal(message.code, '482913');
    const read = await t.app.inject({
      url: `/v1/cells/${line.cell.id}/messages/${message.id}`,
      headers: line.org.headers,
    });
    assert.equal(read.json().code, '482913');
    const event = (await eventsOf(t, 'message.received')).find((e) => e.data.id === message.id);
    assert.equal(event?.data.code, '482913');
    const response = await codes(line);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), {
      codes: [
        {
          code: '482913',
          message_id: message.id,
          from: '+14155550123',
          service: 'Google',
          received_at: message.received_at,
        },
      ],
      next_cursor: null,
    });
  });

  it('leaves code null on texts without one and on outbound messages', async () => {
    const line = await activeLine(t);
    const plain = await received(line, '+14155550123', 'Your order 48201 has shipped.');
    assert.equal(plain.code, null);
    const sent = await queued(t, line, { to: '+14155550123', body: 'Your code is 482913' });
    assert.equal(sent.code, null);
    assert.deepEqual((await codes(line)).json().codes, []);
  });

  it('lists newest first, pages with the cursor, and filters by since (time or message id)', async () => {
    const line = await activeLine(t);
    const ids: string[] = [];
    for (const code of ['1111', '2222', '3333']) {
      t.clock.advance(1000);
      ids.push((await received(line, '+14155550123', `Your Uber code is ${code}.`)).id);
    }
    const first = (await codes(line, '?limit=2')).json();
    assert.deepEqual(
      first.codes.map((c: { code: string }) => c.code),
      ['3333', '2222'],
    );
    assert.equal(first.codes[0].service, 'Uber');
    const second = (await codes(line, `?limit=2&cursor=${first.next_cursor}`)).json();
    assert.deepEqual(
      second.codes.map((c: { code: string }) => c.code),
      ['1111'],
    );
    assert.equal(second.next_cursor, null);
    const sinceId = (await codes(line, `?since=${ids[0]}`)).json();
    assert.deepEqual(
      sinceId.codes.map((c: { code: string }) => c.code),
      ['3333', '2222'],
    );
    const at = new Date(t.clock.now().getTime() - 500).toISOString();
    const sinceTime = (await codes(line, `?since=${encodeURIComponent(at.replace('Z', '+00:00'))}`)).json();
    assert.deepEqual(
      sinceTime.codes.map((c: { code: string }) => c.code),
      ['3333'],
    );
  });

  it('long-polls: a code arriving wakes a waiting request at once', async () => {
    const line = await activeLine(t);
    await received(line, '+14155550123', 'Your Uber code is 9999.'); // before the wait: not its answer
    t.clock.advance(1000);
    const started = Date.now();
    const waiting = codes(line, '?wait=10');
    await waitsInProgress(t, 1);
    await received(line, '+14155550123', 'Running late'); // no code: keeps waiting
    const message = await received(line, '+14155550100', 'Your Telegram code: 61842');
    const response = await waiting;
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(
      response.json().codes.map((c: { message_id: string }) => c.message_id),
      [message.id],
    );
    assert.ok(Date.now() - started < 3000, 'answered long before wait elapsed');
    await waitsInProgress(t, 0);
  });

  it('long-polls: answers at once when a code after since is already there', async () => {
    const line = await activeLine(t);
    const since = t.clock.now().toISOString();
    t.clock.advance(1000);
    await received(line, '+14155550123', 'Your code is 4821');
    const started = Date.now();
    const response = await codes(line, `?since=${encodeURIComponent(since)}&wait=30`);
    assert.deepEqual(
      response.json().codes.map((c: { code: string }) => c.code),
      ['4821'],
    );
    assert.ok(Date.now() - started < 2000);
  });

  it('long-polls: answers an empty list once wait elapses', async () => {
    const line = await activeLine(t);
    const started = Date.now();
    const response = await codes(line, '?wait=1');
    assert.deepEqual(response.json(), { codes: [], next_cursor: null });
    assert.ok(Date.now() - started >= 950);
  });

  it('leaves out codes from ignored participants', async () => {
    const line = await activeLine(t);
    const ignore = await t.app.inject({
      method: 'POST',
      url: `/v1/cells/${line.cell.id}/ignore`,
      headers: line.org.headers,
      payload: { participant: '+14155550177' },
    });
    assert.equal(ignore.statusCode, 201, ignore.body);
    await received(line, '+14155550177', 'Your code is 4821');
    assert.deepEqual((await codes(line)).json().codes, []);
  });
});
