// An agent's way in over MCP alone (issue 35; contract §10): initialize carries instructions, an
// unverified organization's tools name themselves and verify_organization, which verifies it;
// get_billing says where it stands and how to pay; create_cell without confirm says what paying
// needs; every result's text carries its structured content as JSON — through both SDK clients.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { signUp } from '../../../test/harness.ts';
import { SDK_CLIENTS, structured, toolErrorOf, useMcpClient } from '../../../test/support/mcp-client.ts';

for (const { sdk, connect } of SDK_CLIENTS) {
  describe(`an agent's way in over MCP, through the ${sdk} SDK client`, () => {
    let org: Awaited<ReturnType<typeof signUp>>;
    const { t, client } = useMcpClient(connect, async (app) => {
      org = await signUp(app);
      return org.apiKey;
    });

    it('answers initialize with instructions: what a cell is, what costs money, the loop', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/mcp',
        headers: {
          authorization: `Bearer ${org.apiKey}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        payload: {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
        },
      });
      const data = response.body.split('\n').find((line) => line.startsWith('data: '));
      const instructions = JSON.parse(data?.slice(6) ?? response.body).result.instructions as string;
      for (const words of [/a cell is one phone number/, /verify_organization/, /get_billing/, /pay/, /since/])
        assert.match(instructions, words);
    });

    it('verifies the organization over MCP; before that each tool names itself and verify_organization', async () => {
      const status = structured(await client.callTool('get_status', {}));
      const verify = status.checks.find((c: { name: string }) => c.name === 'organization');
      assert.match(verify.detail, /call verify_organization with the emailed code/);
      assert.doesNotMatch(JSON.stringify(status.checks), /\/v1\//, 'no REST route named to an MCP agent');
      const refused = toolErrorOf(await client.callTool('list_cells', {}));
      assert.equal(refused.code, 'organization_unverified');
      assert.match(refused.message, /^list_cells needs a verified organization: call verify_organization/);
      assert.doesNotMatch(refused.message, /POST \/v1/);
      const wrong = toolErrorOf(await client.callTool('verify_organization', { code: '000000' }));
      assert.equal(wrong.code, org.code === '000000' ? 'conflict' : 'invalid_code');
      const verified = await client.callTool('verify_organization', { code: org.code });
      assert.equal(structured(verified).status, 'active');
      assert.equal(structured(await client.callTool('list_cells', {})).cells.length, 0);
    });

    it('get_billing: state, balance and how to pay; every result carries its structured content as JSON text', async () => {
      const result = await client.callTool('get_billing', {});
      const billing = structured(result);
      assert.equal(billing.status.state, 'inactive');
      assert.equal(billing.status.prepaid_balance_usd, 0);
      assert.ok(billing.payment_options.rails.includes('card_processor'));
      const texts = (result.content as { type: string; text: string }[]).map((c) => c.text);
      assert.match(texts[0], /^Billing inactive; balance \$0\.00; rails: /);
      assert.deepEqual(JSON.parse(texts[1]), billing);
    });

    it('create_cell without confirm says what paying needs, not only "call again with confirm"', async () => {
      const result = await client.callTool('create_cell', { display_name: 'Line' });
      const answer = structured(result);
      assert.equal(answer.confirmation_required, true);
      assert.equal(answer.quote.payment.intent, 'setup');
      const [text] = result.content as { text: string }[];
      assert.match(text.text, /^Not done: a payment of \$20\.00 \(setup\) is needed first\./);
      assert.match(text.text, /a person pays it at the checkout_url/);
    });

    it('pay without an agent rail: one checkout_url for a person, no x402 block; once paid, get_billing is active', async () => {
      const error = toolErrorOf(await client.callTool('pay', { intent: 'setup' }));
      assert.equal(error.code, 'payment_required');
      assert.equal(error.payment.intent, 'setup');
      assert.equal(error.payment.amount_usd, '20.00');
      assert.equal(error.x402_payment_required, undefined, 'no empty x402 block');
      assert.match(
        error.message,
        /No agent payment rail is configured here: a person pays it by card at payment\.checkout_url/,
      );
      const url = new URL(error.payment.checkout_url);
      const paid = await t.app.inject({
        method: 'POST',
        url: url.pathname + url.search,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: '',
      });
      assert.equal(paid.statusCode, 200, paid.body);
      const billing = structured(await client.callTool('get_billing', {}));
      assert.equal(billing.status.state, 'active');
      assert.equal(billing.status.tier, 'starter');
    });
  });
}
