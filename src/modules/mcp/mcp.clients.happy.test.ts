// The documented wait_for_reply loop (`since = next_since`, again and again) through both SDK
// client generations: every next_since a wait answers is taken back, timed out or not, and a
// reply that arrives between two waits is the second wait's answer.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeLine, inbound, type Line } from '../../../test/support/messages.ts';
import { SDK_CLIENTS, structured, useMcpClient } from '../../../test/support/mcp-client.ts';

for (const { sdk, connect } of SDK_CLIENTS) {
  describe(`wait_for_reply in a loop through the ${sdk} SDK client`, () => {
    let line: Line;
    const { t, client } = useMcpClient(connect, async (app) => {
      line = await activeLine(app);
      return line.org.apiKey;
    });

    const wait = async (since: string | undefined) =>
      structured(
        await client.callTool('wait_for_reply', {
          cell_id: line.cell.id,
          participant: '+14155550123',
          ...(since === undefined ? {} : { since }),
          timeout_s: 1,
        }),
      );

    it('takes back the next_since of a timed-out wait and returns the reply that arrived between the two waits', async () => {
      const first = await wait(undefined);
      assert.equal(first.message, null);
      assert.match(first.next_since, /^msg_/);

      t.clock.advance(5_000);
      assert.equal((await inbound(t, line, { from: '+14155550123', body: 'between the waits' })).statusCode, 201);
      const second = await wait(first.next_since);
      assert.equal(second.message?.body, 'between the waits');
      assert.equal(second.next_since, second.message.id);

      const third = await wait(second.next_since);
      assert.equal(third.message, null, 'the reply is not returned twice');
      assert.equal(third.next_since, second.next_since, 'a timeout keeps the bound: nothing after it is skipped');

      // Timed out twice in a row from a message id, then a reply during the wait.
      const fourth = await wait(third.next_since);
      assert.equal(fourth.message, null);
      t.clock.advance(1_000);
      const waiting = wait(fourth.next_since);
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal((await inbound(t, line, { from: '+14155550123', body: 'during the wait' })).statusCode, 201);
      assert.equal((await waiting).message?.body, 'during the wait');
    });

    it('takes back the next_since of a wait that started from an ISO time', async () => {
      t.clock.advance(1_000);
      const since = t.clock.now().toISOString();
      const timedOut = await wait(since);
      assert.equal(timedOut.message, null);
      t.clock.advance(1_000);
      assert.equal((await inbound(t, line, { from: '+14155550123', body: 'after the ISO time' })).statusCode, 201);
      assert.equal((await wait(timedOut.next_since)).message?.body, 'after the ISO time');
    });
  });
}
