// wait_for_code through both SDK client generations, end to end: a simulated phone carries the
// cell, a code text arrives on it while an agent waits in its MCP host, and the wait answers it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { SimulatedDevice } from '../../cli/device-simulator.ts';
import { activeOrganization } from '../../../test/harness.ts';
import { activeLine, type Line } from '../../../test/support/messages.ts';
import { SDK_CLIENTS, startPhone, structured, toolErrorOf, useMcpClient } from '../../../test/support/mcp-client.ts';

for (const { sdk, connect } of SDK_CLIENTS) {
  describe(`wait_for_code through the ${sdk} SDK client with a simulated phone`, () => {
    let line: Line;
    let phone: SimulatedDevice;
    // Registered before the suite's app and client, so it runs while they are still open.
    after(() => phone?.stop());
    const { t, client } = useMcpClient(connect, async (app) => {
      line = await activeLine(app);
      return line.org.apiKey;
    });
    before(async () => {
      phone = await startPhone(t, line);
    });

    const waitForCode = async (args: Record<string, unknown>) =>
      structured(await client.callTool('wait_for_code', { cell_id: line.cell.id, timeout_s: 10, ...args }));
    const waiting = async (count: number) => {
      const deadline = Date.now() + 5000;
      while (t.services.codes.activeWaits !== count) {
        if (Date.now() > deadline)
          throw new Error(`expected ${count} code waits, have ${t.services.codes.activeWaits}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };

    it('answers the code a text brings to the phone during the wait, with its service and sender', async () => {
      const answer = waitForCode({});
      await waiting(1);
      t.clock.advance(1000);
      const upload = await phone.sendInbound('+16505550100', 'G-482913 is your Google verification code.');
      assert.equal(upload.status, 201);
      const result = await answer;
      assert.deepEqual(result.code, {
        code: '482913',
        message_id: upload.message.id,
        from: '+16505550100',
        service: 'Google',
        received_at: upload.message.received_at,
      });
      assert.equal(result.next_since, upload.message.id);
      // The same code is not the answer twice.
      const again = await waitForCode({ since: result.next_since, timeout_s: 1 });
      assert.deepEqual(again, { code: null, next_since: result.next_since });
    });

    it('waits past codes of other services and senders for the one asked for', async () => {
      t.clock.advance(1000);
      const since = t.clock.now().toISOString();
      const answer = waitForCode({ since, service: 'uber', from: '+14155550111' });
      await waiting(1);
      t.clock.advance(1000);
      await phone.sendInbound('+14155550111', 'Your Lyft code is 7720.');
      await phone.sendInbound('+14155550999', '[Uber] Your Uber code: 1111.');
      const uber = await phone.sendInbound('+14155550111', '[Uber] Your Uber code: 7291. Never share this code.');
      const result = await answer;
      assert.equal(result.code.code, '7291');
      assert.equal(result.code.message_id, uber.message.id);
      assert.equal(result.code.service, 'Uber');
    });

    it('answers a code already there after since at once, and code null after the timeout', async () => {
      const since = t.clock.now().toISOString();
      t.clock.advance(1000);
      await phone.sendInbound('+16505550100', 'Your verification code is 9210');
      assert.equal((await waitForCode({ since, timeout_s: 1 })).code.code, '9210');
      t.clock.advance(1000);
      const timedOut = await waitForCode({ timeout_s: 1 });
      assert.equal(timedOut.code, null);
      assert.match(timedOut.next_since, /^msg_/);
    });

    it('refuses a bad since and a foreign cell as tool errors', async () => {
      const bad = toolErrorOf(
        await client.callTool('wait_for_code', { cell_id: line.cell.id, since: 'yesterday', timeout_s: 1 }),
      );
      assert.equal(bad.code, 'invalid_request');
      const other = await activeLine(t, {}, await activeOrganization(t));
      const foreign = toolErrorOf(await client.callTool('wait_for_code', { cell_id: other.cell.id, timeout_s: 1 }));
      assert.equal(foreign.code, 'not_found');
    });
  });
}
