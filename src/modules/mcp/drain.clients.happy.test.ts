// A drain does not wait out the waits (issue 35 §7; contract §10): when the app starts closing
// (SIGTERM, SIGINT), a wait_for_reply in flight answers at once, "no reply yet; call again with
// since=…", through both SDK clients — the close takes far less than the wait's 50 seconds.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { activeLine } from '../../../test/support/messages.ts';
import { SDK_CLIENTS, startListening, structured } from '../../../test/support/mcp-client.ts';

for (const { sdk, connect } of SDK_CLIENTS) {
  describe(`a drain through the ${sdk} SDK client`, () => {
    it('answers a wait in flight at once when the app closes', { timeout: 30_000 }, async () => {
      const t = await startListening();
      const line = await activeLine(t);
      const client = await connect(t, line.org.apiKey);
      try {
        const waiting = client.callTool('wait_for_reply', { cell_id: line.cell.id, timeout_s: 50 });
        // The wait holds one of the organization's wait slots once it is waiting.
        while (t.services.caps.mcpWaits.count(line.org.organizationId) === 0) await delay(5);
        const closed = t.close();
        const result = await waiting;
        await closed;
        assert.equal(result.isError, undefined, JSON.stringify(result));
        const answer = structured(result);
        assert.equal(answer.message, null);
        assert.match(answer.next_since, /^msg_/);
        const [text] = result.content as { text: string }[];
        assert.match(text.text, /^No reply yet; call again with since=msg_/);
      } finally {
        await client.close().catch(() => {});
      }
    });
  });
}
