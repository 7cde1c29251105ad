// x402 inside MCP (issue 35; contract §10, x402 v2 specs/transports-v2/mcp.md), through both SDK
// client generations, with the client-side x402 libraries (@x402/core builds and @x402/evm signs
// the payload) and the local facilitator double that checks the signatures: a paid tool's
// payment_required carries the PaymentRequired in structuredContent and as JSON text; the same
// call retried with _meta["x402/payment"] is settled once and answers _meta["x402/payment-response"].
// Replays (MCP and REST), a wrong amount, another organization's payload and a facilitator failure
// are refused, crediting nothing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { x402Client } from '@x402/core/client';
import type { PaymentPayload } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { verifiedOrganization } from '../../../test/harness.ts';
import { BASE_PAY_TO, grant } from '../../../test/support/billing.ts';
import { activeLine } from '../../../test/support/messages.ts';
import {
  SDK_CLIENTS,
  startListening,
  paymentRequiredOf,
  structured,
  type AnyMcpClient,
  type McpTestApp,
} from '../../../test/support/mcp-client.ts';
import { startFacilitator, type FacilitatorDouble } from '../../../test/support/x402-facilitator.ts';

const wallet = () =>
  x402Client.fromConfig({
    schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(privateKeyToAccount(generatePrivateKey())) }],
    spendControls: { maxAmountPerPayment: '$100' },
  });

for (const { sdk, connect } of SDK_CLIENTS) {
  describe(`x402 inside MCP through the ${sdk} SDK client`, () => {
    let t: McpTestApp;
    let facilitator: FacilitatorDouble;
    const clients: AnyMcpClient[] = [];
    before(async () => {
      facilitator = await startFacilitator();
      t = await startListening({
        env: { CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO, CELLGATE_X402_FACILITATOR_URL: facilitator.url },
      });
    });
    after(async () => {
      for (const client of clients) await client.close().catch(() => {});
      await t?.close();
      await facilitator?.close();
    });
    const agentOf = async (apiKey: string) => {
      const client = await connect(t, apiKey);
      clients.push(client);
      return client;
    };
    const settles = () => facilitator.calls.filter((call) => call.path === '/settle').length;
    const balanceOf = async (headers: Record<string, string>) =>
      (await t.app.inject({ url: '/v1/billing/status', headers })).json().prepaid_balance_usd as number;

    it('pays a setup with a starting balance in the pay call; the same payload again is replayed, over MCP and REST', async () => {
      const org = await verifiedOrganization(t);
      const agent = await agentOf(org.apiKey);
      const asked = paymentRequiredOf(await agent.callTool('pay', { intent: 'setup', amount_usd: '10.00' }));
      assert.equal(asked.error.code, 'payment_required');
      assert.equal(asked.required.accepts[0].amount, '30000000');
      assert.equal(asked.required.accepts[0].payTo, BASE_PAY_TO);
      assert.equal(asked.required.resource.url, `${t.origin}/mcp`);
      assert.match(asked.error.payment.checkout_url, /\/v1\/billing\/checkout\/pay_/);
      const payload = await wallet().createPaymentPayload(asked.required);
      const paid = await agent.callTool('pay', { intent: 'setup', amount_usd: '10.00' }, { 'x402/payment': payload });
      assert.equal(paid.isError, undefined, JSON.stringify(paid));
      const answer = structured(paid);
      assert.equal(answer.intent, 'setup');
      assert.equal(answer.amount_usd, '30.00');
      assert.equal(answer.billing.state, 'active');
      assert.equal(answer.billing.prepaid_balance_usd, 10);
      const response = paid._meta?.['x402/payment-response'] as { success: boolean; network: string };
      assert.equal(response.success, true);
      assert.equal(response.network, 'eip155:8453');
      const settled = settles();
      const again = paymentRequiredOf(
        await agent.callTool('pay', { intent: 'top_up', amount_usd: '30.00' }, { 'x402/payment': payload }),
      );
      assert.equal(again.error.reason, 'replayed');
      const rest = await t.app.inject({
        method: 'POST',
        url: '/v1/billing/x402/pay',
        headers: { ...org.headers, 'payment-signature': Buffer.from(JSON.stringify(payload)).toString('base64') },
        payload: { intent: 'top_up', amount_usd: '30.00' },
      });
      assert.equal(rest.statusCode, 402);
      assert.equal(rest.json().reason, 'replayed');
      assert.equal(settles(), settled, 'the facilitator never saw the replays');
      assert.equal(await balanceOf(org.headers), 10);
    });

    it('pays a send the balance cannot cover in the send_message call itself, once', async () => {
      const org = await verifiedOrganization(t);
      await grant(t, org.organizationId);
      const line = await activeLine(t, {}, org);
      const agent = await agentOf(org.apiKey);
      const args = {
        cell_id: line.cell.id,
        to: '+14155550100',
        body: 'paid in the call',
        idempotency_key: `x402-${sdk}`,
      };
      const asked = paymentRequiredOf(await agent.callTool('send_message', args));
      assert.equal(asked.error.payment.intent, 'top_up');
      const payload = await wallet().createPaymentPayload(asked.required);
      const sent = await agent.callTool('send_message', args, { 'x402/payment': payload });
      assert.equal(sent.isError, undefined, JSON.stringify(sent));
      assert.equal(structured(sent).message.status, 'queued');
      assert.equal((sent._meta?.['x402/payment-response'] as { success: boolean }).success, true);
      assert.equal(await balanceOf(org.headers), 4.99);
      // Re-issued as a client does on a broken stream (same key, same payment): the first answer, not paid again.
      const settled = settles();
      const again = await agent.callTool('send_message', args, { 'x402/payment': payload });
      assert.equal(again.isError, undefined, JSON.stringify(again));
      assert.equal(structured(again).replayed, true);
      assert.equal(structured(again).message.id, structured(sent).message.id);
      assert.equal(again._meta?.['x402/payment-response'], undefined);
      assert.equal(settles(), settled);
      assert.equal(await balanceOf(org.headers), 4.99);
    });

    it("refuses a wrong amount, another organization's payload and a failed settlement, crediting nothing", async () => {
      const org = await verifiedOrganization(t);
      const agent = await agentOf(org.apiKey);
      const asked = paymentRequiredOf(await agent.callTool('pay', { intent: 'top_up', amount_usd: '5.00' }));
      const payload = await wallet().createPaymentPayload(asked.required);
      // Signed for $5.00, presented as $50.00: no open quote of that amount.
      const inflated = { ...payload, accepted: { ...payload.accepted, amount: '50000000' } } as PaymentPayload;
      const wrong = paymentRequiredOf(
        await agent.callTool('pay', { intent: 'top_up', amount_usd: '5.00' }, { 'x402/payment': inflated }),
      );
      assert.match(wrong.error.message, /no open quote of this organization has that amount/);
      // Another organization's signed payment, for a quote of its own.
      const other = await verifiedOrganization(t);
      const theirs = await agentOf(other.apiKey);
      const theirQuote = paymentRequiredOf(await theirs.callTool('pay', { intent: 'top_up', amount_usd: '7.00' }));
      const theirPayload = await wallet().createPaymentPayload(theirQuote.required);
      const foreign = paymentRequiredOf(
        await agent.callTool('pay', { intent: 'top_up', amount_usd: '5.00' }, { 'x402/payment': theirPayload }),
      );
      assert.equal(foreign.error.code, 'payment_required');
      // The facilitator fails to settle.
      facilitator.mode = 'settle_fails';
      try {
        const failed = paymentRequiredOf(
          await agent.callTool('pay', { intent: 'top_up', amount_usd: '5.00' }, { 'x402/payment': payload }),
        );
        assert.match(failed.error.message, /The x402 payment was refused/);
        assert.ok(failed.required.accepts.length > 0, 'a fresh quote to pay');
      } finally {
        facilitator.mode = 'ok';
      }
      assert.equal(await balanceOf(org.headers), 0);
      assert.equal(await balanceOf(other.headers), 0);
      // The good payload still pays, once.
      const paid = await agent.callTool('pay', { intent: 'top_up', amount_usd: '5.00' }, { 'x402/payment': payload });
      assert.equal(structured(paid).billing.prepaid_balance_usd, 5, JSON.stringify(paid));
    });
  });
}
