// wait_for_delivery and phones that cannot report delivery (contract §4): for such a phone the
// wait ends at `sent` and says why; for others `sent` is not the end. With both SDK clients (the
// v1 client validates structuredContent against the tool's output schema).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeLine, claim, report, type Line } from '../../../test/support/messages.ts';
import {
  SDK_CLIENTS,
  startListening,
  structured,
  toolErrorOf,
  type AnyMcpClient,
  type McpTestApp,
} from '../../../test/support/mcp-client.ts';

const TERMUX = { delivery_reports: false, mms_send: false, mms_receive: false };

for (const sdk of SDK_CLIENTS) {
  describe(`wait_for_delivery and delivery reports (${sdk.sdk} client)`, () => {
    let t: McpTestApp;
    let termux: Line;
    let client: AnyMcpClient;
    let sends = 0;
    before(async () => {
      t = await startListening();
      termux = await activeLine(t);
      const stated = await t.app.inject({
        method: 'POST',
        url: '/v1/device/heartbeat',
        headers: termux.device.headers,
        payload: { capabilities: TERMUX },
      });
      assert.equal(stated.statusCode, 200);
      client = await sdk.connect(t, termux.org.apiKey);
    });
    after(async () => {
      await client?.close();
      await t?.close();
    });

    async function sendFrom(line: Line, extra: Record<string, unknown> = {}) {
      sends += 1;
      return client.callTool('send_message', {
        cell_id: line.cell.id,
        to: '+14155550190',
        body: `Track me ${sends}`,
        idempotency_key: `track-${sdk.sdk}-${sends}`,
        ...extra,
      });
    }

    it("shows the phone's capabilities in list_cells", async () => {
      const { cells } = structured(await client.callTool('list_cells', {}));
      assert.deepEqual(cells.find((c: { id: string }) => c.id === termux.cell.id).capabilities, TERMUX);
    });

    it('ends at sent for a phone without delivery reports, saying that delivery reports are not available', async () => {
      const id = structured(await sendFrom(termux)).message.id;
      const waiting = client.callTool('wait_for_delivery', { message_id: id, timeout_s: 30 });
      assert.ok((await claim(t, termux)).some((m) => m.id === id));
      assert.equal((await report(t, termux, id, { event: 'sent' })).statusCode, 200);
      const result = await waiting;
      const answer = structured(result);
      assert.equal(answer.message.status, 'sent');
      assert.equal(answer.final, true);
      assert.equal(answer.delivery_reports, false);
      assert.match(answer.note, /delivery reports are not available for this phone/i);
      const [text] = result.content as { text: string }[];
      assert.match(text.text, /is sent\. Delivery reports are not available for this phone/);
    });

    it('answers at once for a message already sent from such a phone', async () => {
      const id = structured(await sendFrom(termux)).message.id;
      await claim(t, termux);
      await report(t, termux, id, { event: 'sent' });
      const answer = structured(
        await client.callTool('wait_for_delivery', { message_id: id, cell_id: termux.cell.id, timeout_s: 30 }),
      );
      assert.deepEqual([answer.message.status, answer.final, answer.delivery_reports], ['sent', true, false]);
    });

    it('keeps waiting past sent for a phone that reports delivery', async () => {
      const reporting = await activeLine(t, {}, termux.org);
      const id = structured(await sendFrom(reporting)).message.id;
      await claim(t, reporting);
      await report(t, reporting, id, { event: 'sent' });
      const answer = structured(await client.callTool('wait_for_delivery', { message_id: id, timeout_s: 1 }));
      assert.deepEqual(
        [answer.message.status, answer.final, answer.delivery_reports, answer.note],
        ['sent', false, true, undefined],
      );
    });

    it('refuses send_message with media from a phone that cannot send MMS (mms_unsupported)', async () => {
      const error = toolErrorOf(await sendFrom(termux, { media_urls: ['https://example.com/a.jpg'] }));
      assert.equal(error.code, 'mms_unsupported');
    });
  });
}
