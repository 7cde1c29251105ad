// Tool errors reach the agent through every MCP client generation: the v1 SDK (most deployed
// hosts, the Inspector) validates structuredContent against a tool's output schema even on an
// error, so an error must travel as JSON text with no structuredContent (contract §10).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { verifiedOrganization } from '../../../test/harness.ts';
import { BASE_PAY_TO, grant } from '../../../test/support/billing.ts';
import { activeLine, inbound, type Line } from '../../../test/support/messages.ts';
import { SDK_CLIENTS, paymentRequiredOf, toolErrorOf, useMcpClient } from '../../../test/support/mcp-client.ts';

for (const { sdk, connect } of SDK_CLIENTS) {
  describe(`MCP tool errors through the ${sdk} SDK client`, () => {
    let line: Line;
    const { t, client, open } = useMcpClient(
      connect,
      async (app) => {
        line = await activeLine(app);
        return line.org.apiKey;
      },
      // x402 configured, so a 402 carries the x402 PaymentRequired too.
      { env: { CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO } },
    );

    it('shows create_cell refused by billing as payment_required with the PaymentDetails and the x402 PaymentRequired', async () => {
      const unpaid = await open((await verifiedOrganization(t)).apiKey);
      const { required, error } = paymentRequiredOf(
        await unpaid.callTool('create_cell', { display_name: 'Sales', confirm: true }),
      );
      assert.deepEqual(required, error.x402_payment_required);
      assert.equal(error.code, 'payment_required');
      assert.equal(typeof error.message, 'string');
      assert.equal(error.payment.intent, 'setup');
      assert.equal(error.payment.amount_usd, '20.00');
      assert.match(error.payment.checkout_url, /\/v1\/billing\/checkout\/pay_/);
      assert.equal(error.x402_payment_required.x402Version, 2);
      assert.equal(error.x402_payment_required.resource.url, `${t.origin}/mcp`);
      assert.equal(error.x402_payment_required.accepts[0].amount, '20000000');
    });

    it('answers pay with the PaymentDetails and, x402 being configured, the x402 PaymentRequired', async () => {
      const agent = await open((await verifiedOrganization(t)).apiKey);
      const { error } = paymentRequiredOf(await agent.callTool('pay', { intent: 'top_up', amount_usd: '7.50' }));
      assert.equal(error.code, 'payment_required');
      assert.equal(error.payment.intent, 'top_up');
      assert.equal(error.payment.amount_usd, '7.50');
      assert.match(error.payment.checkout_url, /\/v1\/billing\/checkout\/pay_/);
      assert.equal(error.x402_payment_required.accepts[0].amount, '7500000');
      assert.equal(error.x402_payment_required.accepts[0].payTo, BASE_PAY_TO);
      const low = toolErrorOf(await agent.callTool('pay', { intent: 'top_up', amount_usd: '1.00' }));
      assert.equal(low.code, 'invalid_request');
      assert.equal(low.field, 'amount_usd');
    });

    it('shows a send_message the balance cannot cover as payment_required with a top_up', async () => {
      const org = await verifiedOrganization(t);
      await grant(t, org.organizationId);
      const poor = await activeLine(t, {}, org);
      const agent = await open(org.apiKey);
      const { error } = paymentRequiredOf(
        await agent.callTool('send_message', {
          cell_id: poor.cell.id,
          to: '+14155550100',
          body: 'hello',
          idempotency_key: `poor-${sdk}`,
        }),
      );
      assert.equal(error.code, 'payment_required');
      assert.equal(error.payment.intent, 'top_up');
      assert.equal(error.payment.amount_usd, '5.00');
      assert.equal(error.x402_payment_required.resource.url, `${t.origin}/mcp`);
    });

    it('shows an id of another organization as not_found', async () => {
      const other = await activeLine(t);
      const error = toolErrorOf(await client.callTool('list_messages', { cell_id: other.cell.id }));
      assert.equal(error.code, 'not_found');
    });

    it('shows an invalid phone number as invalid_request naming the field', async () => {
      const error = toolErrorOf(
        await client.callTool('send_message', {
          cell_id: line.cell.id,
          to: 'not a phone',
          body: 'x',
          idempotency_key: `bad-phone-${sdk}`,
        }),
      );
      assert.equal(error.code, 'invalid_request');
      assert.equal(error.field, 'to');
      assert.equal(error.errors[0].field, 'to');
    });

    it('shows a send to a number that texted STOP as recipient_opted_out', async () => {
      const from = sdk === 'v1' ? '+14155550161' : '+14155550162';
      assert.equal((await inbound(t, line, { from, body: 'STOP' })).statusCode, 201);
      const error = toolErrorOf(
        await client.callTool('send_message', {
          cell_id: line.cell.id,
          to: from,
          body: 'hello?',
          idempotency_key: `stop-${sdk}`,
        }),
      );
      assert.equal(error.code, 'recipient_opted_out');
    });

    it('shows the same idempotency_key with other arguments as idempotency_key_reused', async () => {
      const args = { cell_id: line.cell.id, to: '+14155550111', body: 'first body', idempotency_key: `reuse-${sdk}` };
      assert.equal((await client.callTool('send_message', args)).isError, undefined);
      const error = toolErrorOf(await client.callTool('send_message', { ...args, body: 'another body' }));
      assert.equal(error.code, 'idempotency_key_reused');
    });

    it('shows a replayed refusal as the same tool error, without the stored HTTP status', async () => {
      const args = {
        cell_id: line.cell.id,
        to: sdk === 'v1' ? '+14155550163' : '+14155550164',
        body: 'hello?',
        idempotency_key: `stop-replay-${sdk}`,
      };
      assert.equal((await inbound(t, line, { from: args.to, body: 'STOP' })).statusCode, 201);
      const first = toolErrorOf(await client.callTool('send_message', args));
      const again = toolErrorOf(await client.callTool('send_message', args));
      assert.deepEqual(again, first);
    });
  });
}
