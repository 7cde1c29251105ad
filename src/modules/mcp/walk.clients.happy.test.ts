// Issue 35 "done when": a fresh organization goes from sign-up to a delivered text and a read
// reply through MCP tools only (after the API key sign-up answers), on both SDK generations:
// verify, read the billing, pay the setup with a starting balance — by x402 inside MCP where an
// agent rail is configured, else by one hand-off to a person (one checkout_url, one payment) —
// create the cell, send, wait for delivery, wait for the reply. Each call and the first line of
// its answer are printed as test diagnostics (the walk's transcript).
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { x402Client } from '@x402/core/client';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { SimulatedDevice } from '../../cli/device-simulator.ts';
import { signUp } from '../../../test/harness.ts';
import { BASE_PAY_TO } from '../../../test/support/billing.ts';
import { addDevice } from '../../../test/support/devices.ts';
import { inbound, type Line } from '../../../test/support/messages.ts';
import {
  SDK_CLIENTS,
  paymentRequiredOf,
  startListening,
  startPhone,
  structured,
  toolErrorOf,
  type AnyMcpClient,
  type McpTestApp,
  type ToolResult,
} from '../../../test/support/mcp-client.ts';
import { startFacilitator, type FacilitatorDouble } from '../../../test/support/x402-facilitator.ts';

const RECIPIENT = '+14155550142';

for (const { sdk, connect } of SDK_CLIENTS) {
  for (const rail of ['x402', 'none'] as const) {
    describe(`the MCP walk through the ${sdk} SDK client, agent rail: ${rail}`, () => {
      let t: McpTestApp;
      let facilitator: FacilitatorDouble | undefined;
      let phone: SimulatedDevice | undefined;
      let client: AnyMcpClient | undefined;
      before(async () => {
        facilitator = rail === 'x402' ? await startFacilitator() : undefined;
        t = await startListening({
          env: facilitator
            ? { CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO, CELLGATE_X402_FACILITATOR_URL: facilitator.url }
            : {},
        });
      });
      after(async () => {
        await client?.close().catch(() => {});
        await phone?.stop();
        await t?.close();
        await facilitator?.close();
      });

      it('signs up, verifies, pays once, creates a cell, sends, sees it delivered and reads the reply', async (test: TestContext) => {
        // The operator's rack has a phone for the cell.
        const device = await addDevice(t);
        const org = await signUp(t);
        const agent = await connect(t, org.apiKey);
        client = agent;
        const call = async (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) => {
          const result = await agent.callTool(name, args, meta);
          const [first] = (result.content ?? []) as { text: string }[];
          test.diagnostic(`${name} ${JSON.stringify(args)}${meta ? ' +_meta' : ''} -> ${first?.text.slice(0, 240)}`);
          return result;
        };
        const ok = (result: ToolResult) => {
          assert.equal(result.isError, undefined, JSON.stringify(result));
          return structured(result);
        };

        const unverified = toolErrorOf(await call('create_cell', { display_name: 'Walk' }));
        assert.equal(unverified.code, 'organization_unverified');
        assert.equal(ok(await call('verify_organization', { code: org.code })).status, 'active');
        ok(await call('get_status', {}));
        assert.equal(ok(await call('get_billing', {})).status.state, 'inactive');
        const quote = ok(await call('create_cell', { display_name: 'Walk' }));
        assert.equal(quote.quote.payment.intent, 'setup');

        const setup = { intent: 'setup', amount_usd: '10.00' };
        const asked = await call('pay', setup);
        if (rail === 'x402') {
          const { required } = paymentRequiredOf(asked);
          const wallet = x402Client.fromConfig({
            schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(privateKeyToAccount(generatePrivateKey())) }],
            spendControls: { maxAmountPerPayment: '$100' },
          });
          const payload = await wallet.createPaymentPayload(required);
          const paid = await call('pay', setup, { 'x402/payment': payload });
          assert.equal(ok(paid).billing.state, 'active');
          assert.equal((paid._meta?.['x402/payment-response'] as { success: boolean }).success, true);
        } else {
          const refused = toolErrorOf(asked);
          assert.equal(refused.x402_payment_required, undefined);
          assert.match(refused.message, /No agent payment rail is configured here/);
          // The one hand-off: a person opens checkout_url and pays.
          const url = new URL(refused.payment.checkout_url);
          test.diagnostic(`a person pays $${refused.payment.amount_usd} at ${url.pathname}`);
          const page = await t.app.inject({
            method: 'POST',
            url: url.pathname + url.search,
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            payload: '',
          });
          assert.equal(page.statusCode, 200);
        }
        const billing = ok(await call('get_billing', {}));
        assert.deepEqual([billing.status.state, billing.status.prepaid_balance_usd], ['active', 10]);

        const cell = ok(await call('create_cell', { display_name: 'Walk', confirm: true })).cell;
        assert.equal(cell.status, 'active');
        assert.equal(cell.phone_number, device.phoneNumber);
        const line = { device, cell } as unknown as Line;
        phone = await startPhone(t, line);
        const sent = ok(
          await call('send_message', {
            cell_id: cell.id,
            to: RECIPIENT,
            body: 'Hello from the walk',
            idempotency_key: 'walk-1',
          }),
        ).message;
        let delivery = ok(await call('wait_for_delivery', { message_id: sent.id, timeout_s: 30 }));
        while (!delivery.final) delivery = ok(await call('wait_for_delivery', { message_id: sent.id, timeout_s: 30 }));
        assert.ok(['delivered', 'sent'].includes(delivery.message.status), delivery.message.status);
        const reply = await inbound(t, line, { from: RECIPIENT, body: 'Got it, thanks' });
        assert.equal(reply.statusCode, 201, reply.body);
        const read = ok(await call('wait_for_reply', { cell_id: cell.id, since: sent.id, timeout_s: 30 }));
        assert.equal(read.message.body, 'Got it, thanks');
        assert.equal(ok(await call('get_billing', {})).status.prepaid_balance_usd, 9.99);
      });
    });
  }
}
