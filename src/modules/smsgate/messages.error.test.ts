// State reports the app cannot make (contract §13): a message this phone does not hold is left
// untouched (and named in X-Cellgate-Ignored); a token of another phone sees nothing of this
// one's; unknown states, bad dates and oversized lists are 400/413 and change nothing.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, type TestApp } from '../../../test/harness.ts';
import { mobileLine } from '../../../test/support/mobile.ts';

type Line = Awaited<ReturnType<typeof mobileLine>>;

async function queuedOn(t: TestApp, line: Line) {
  const response = await t.app.inject({
    method: 'POST',
    url: `/v1/cells/${line.cell.id}/messages/send`,
    headers: line.org.headers,
    payload: { to: '+14155550199', body: 'hello' },
  });
  assert.equal(response.statusCode, 202, response.body);
  return response.json().id as string;
}

const patch = (t: TestApp, line: Line, payload: unknown) =>
  t.app.inject({ method: 'PATCH', url: '/mobile/v1/message', headers: line.phone.headers, payload: payload as object });

const read = async (t: TestApp, line: Line, id: string) =>
  (await t.app.inject({ url: `/v1/cells/${line.cell.id}/messages/${id}`, headers: line.org.headers })).json();

describe('SMSGate state reports refused', () => {
  const t = useApp();

  it("another phone's token claims nothing of this phone's and cannot move its messages", async () => {
    const mine = await mobileLine(t);
    const other = await mobileLine(t);
    const id = await queuedOn(t, mine);
    assert.deepEqual((await t.app.inject({ url: '/mobile/v1/message', headers: other.phone.headers })).json(), []);
    await t.app.inject({ url: '/mobile/v1/message', headers: mine.phone.headers });
    const before = await read(t, mine, id);
    const response = await patch(t, other, [{ id, state: 'Sent', recipients: [], states: {} }]);
    assert.equal(response.statusCode, 204);
    assert.equal(response.headers['x-cellgate-ignored'], id);
    assert.deepEqual(await read(t, mine, id), before);
  });

  it('an unknown id, and a queued message no phone claimed, are left untouched and named', async () => {
    const line = await mobileLine(t);
    const id = await queuedOn(t, line);
    const response = await patch(t, line, [
      { id: 'msg_unknown', state: 'Sent', recipients: [], states: {} },
      { id, state: 'Delivered', recipients: [], states: {} },
    ]);
    assert.equal(response.statusCode, 204);
    assert.equal(response.headers['x-cellgate-ignored'], `msg_unknown,${id}`);
    assert.equal((await read(t, line, id)).status, 'queued');
  });

  it('an unknown state or a bad date is 400 and changes nothing, not even the valid items before it', async () => {
    const line = await mobileLine(t);
    const id = await queuedOn(t, line);
    await t.app.inject({ url: '/mobile/v1/message', headers: line.phone.headers });
    const unknown = await patch(t, line, [
      { id, state: 'Sent', recipients: [], states: {} },
      { id, state: 'Exploded', recipients: [], states: {} },
    ]);
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.equal(unknown.json().code, 'invalid_request');
    const badDate = await patch(t, line, [{ id, state: 'Sent', recipients: [], states: { Sent: 'yesterday' } }]);
    assert.equal(badDate.statusCode, 400, badDate.body);
    assert.equal((await read(t, line, id)).status, 'sending');
    const notAList = await patch(t, line, { id, state: 'Sent' });
    assert.equal(notAList.statusCode, 400);
  });

  it('states out of order: Sent after Failed changes nothing', async () => {
    const line = await mobileLine(t);
    const id = await queuedOn(t, line);
    await t.app.inject({ url: '/mobile/v1/message', headers: line.phone.headers });
    await patch(t, line, [
      { id, state: 'Failed', recipients: [{ phoneNumber: '+14155550199', state: 'Failed', error: 'no service' }] },
    ]);
    const failed = await read(t, line, id);
    await patch(t, line, [{ id, state: 'Sent', recipients: [], states: { Sent: '2026-01-01T00:00:00.000Z' } }]);
    await patch(t, line, [{ id, state: 'Processed', recipients: [] }]);
    assert.deepEqual(await read(t, line, id), failed);
    assert.equal(failed.status, 'failed');
  });

  it('an order other than fifo or lifo is 400 and claims nothing', async () => {
    const line = await mobileLine(t);
    const id = await queuedOn(t, line);
    for (const order of ['random', 'LIFO', '']) {
      const response = await t.app.inject({ url: `/mobile/v1/message?order=${order}`, headers: line.phone.headers });
      assert.equal(response.statusCode, 400, `${order}: ${response.body}`);
      assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
      assert.deepEqual([response.json().code, response.json().errors?.[0]?.field], ['invalid_request', 'order']);
    }
    assert.equal((await read(t, line, id)).status, 'queued');
  });

  it('a list over 100 states or 64 KiB is refused', async () => {
    const line = await mobileLine(t);
    const many = Array.from({ length: 101 }, (_, i) => ({ id: `msg_${i}`, state: 'Sent', recipients: [] }));
    assert.equal((await patch(t, line, many)).statusCode, 400);
    const big = await t.app.inject({
      method: 'PATCH',
      url: '/mobile/v1/message',
      headers: { ...line.phone.headers, 'content-type': 'application/json' },
      payload: JSON.stringify([{ id: 'x', state: 'Sent', recipients: [], padding: 'x'.repeat(70_000) }]),
    });
    assert.equal(big.statusCode, 413);
  });
});
