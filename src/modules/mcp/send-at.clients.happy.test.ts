// send_message with send_at through both SDK client generations (contract §12): the message is
// scheduled, and a bad send_at is a tool error naming the field.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeLine, type Line } from '../../../test/support/messages.ts';
import { SDK_CLIENTS, structured, toolErrorOf, useMcpClient } from '../../../test/support/mcp-client.ts';

for (const { sdk, connect } of SDK_CLIENTS) {
  describe(`send_message with send_at through the ${sdk} SDK client`, () => {
    let line: Line;
    const { t, client } = useMcpClient(connect, async (app) => {
      line = await activeLine(app);
      return line.org.apiKey;
    });

    it('schedules the message for send_at', async () => {
      const sendAt = new Date(t.clock.now().getTime() + 60 * 60 * 1000).toISOString();
      const result = structured(
        await client.callTool('send_message', {
          cell_id: line.cell.id,
          to: '+14155550199',
          body: 'Tomorrow',
          send_at: sendAt,
          idempotency_key: `later-${sdk}`,
        }),
      );
      assert.equal(result.message.status, 'scheduled');
      assert.equal(result.message.send_at, sendAt);
    });

    it('answers a past send_at as a tool error naming send_at', async () => {
      const error = toolErrorOf(
        await client.callTool('send_message', {
          cell_id: line.cell.id,
          to: '+14155550199',
          body: 'Yesterday',
          send_at: new Date(t.clock.now().getTime() - 1000).toISOString(),
          idempotency_key: `past-${sdk}`,
        }),
      );
      assert.equal(error.code, 'invalid_request');
      assert.equal(error.errors[0].field, 'send_at');
    });
  });
}
