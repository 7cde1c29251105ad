// The agent status shows billing state and balance only to a credential with billing:read (API keys
// carry every scope): an OAuth token without it gets `billing: null` and one fixed billing check,
// through REST and through MCP's get_status alike.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, bearer } from '../../../test/harness.ts';
import { activeLine, type Line } from '../../../test/support/messages.ts';
import { oauthTokens } from '../../../test/support/oauth-flow.ts';
import { mcpClient, startListening, structured, type McpTestApp } from '../../../test/support/mcp-client.ts';

const HIDDEN_CHECK = {
  name: 'billing',
  status: 'warn',
  detail:
    'Hidden: this token lacks the billing:read scope. Sends and cell creates that billing blocks still answer 402 with the payment that unblocks them.',
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the status body, read loosely
type Status = any;

describe('agent status: billing needs billing:read', () => {
  let t: McpTestApp;
  let line: Line;
  before(async () => {
    t = await startListening();
    line = await activeLine(t);
  });
  after(() => t.close());

  const rest = async (token: string): Promise<Status> => {
    const response = await t.app.inject({ url: '/v1/agent/status', headers: bearer(token) });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };
  const mcp = async (token: string): Promise<{ status: Status; text: string }> => {
    const client = await mcpClient(t, token);
    try {
      const result = await client.callTool({ name: 'get_status', arguments: {} });
      assert.equal(result.isError, undefined, JSON.stringify(result));
      return { status: structured(result), text: (result.content as { text: string }[])[0].text };
    } finally {
      await client.close();
    }
  };
  const billingCheck = (status: Status) => status.checks.find((c: { name: string }) => c.name === 'billing');

  it('leaves billing out of the REST status for a token without billing:read, in every billing state', async () => {
    const { access } = await oauthTokens(t.origin, line.org.apiKey, 'cells:read messages:read');
    const active = await rest(access);
    assert.equal(active.billing, null);
    assert.deepEqual(billingCheck(active), HIDDEN_CHECK);
    assert.doesNotMatch(JSON.stringify(active), /prepaid|balance \$|pro until|amount_due/i);
    // Suspended by the operator's billing: the hidden answer is the same, so its status tells nothing.
    const suspend = await t.app.inject({
      method: 'POST',
      url: `/v1/admin/organizations/${line.org.organizationId}/suspend`,
      headers: admin,
      payload: { reason: 'test' },
    });
    assert.equal(suspend.statusCode, 200, suspend.body);
    const suspended = await rest(access);
    assert.equal(suspended.billing, null);
    assert.deepEqual(billingCheck(suspended), HIDDEN_CHECK);
    // The API key sees what the token does not.
    const seen = await rest(line.org.apiKey);
    assert.equal(seen.billing.state, 'suspended');
    assert.equal(billingCheck(seen).status, 'fail');
    // The rest of the status is all there.
    assert.deepEqual(active.cells, { total: 1, active: 1, online: 0, offline: 1, provisioning: 0 });
    assert.equal(active.checks.length, 5);
  });

  it('shows billing on REST to a token with billing:read and to the API key', async () => {
    const { access } = await oauthTokens(t.origin, line.org.apiKey, 'cells:read billing:read');
    for (const token of [access, line.org.apiKey]) {
      const status = await rest(token);
      assert.equal(typeof status.billing.state, 'string');
      assert.equal(typeof status.billing.prepaid_balance_usd, 'number');
      assert.notDeepEqual(billingCheck(status), HIDDEN_CHECK);
    }
  });

  it('leaves billing out of MCP get_status (structured content and text) without billing:read, and shows it with it', async () => {
    const hidden = await mcp((await oauthTokens(t.origin, line.org.apiKey, 'cells:read', `${t.origin}/mcp`)).access);
    assert.equal(hidden.status.billing, null);
    assert.deepEqual(billingCheck(hidden.status), HIDDEN_CHECK);
    assert.match(hidden.text, /billing: warn: Hidden: this token lacks the billing:read scope/);
    assert.doesNotMatch(hidden.text, /prepaid|balance \$/i);

    const shown = await mcp(
      (await oauthTokens(t.origin, line.org.apiKey, 'cells:read billing:read', `${t.origin}/mcp`)).access,
    );
    assert.equal(typeof shown.status.billing.state, 'string');
    assert.notDeepEqual(billingCheck(shown.status), HIDDEN_CHECK);
    const key = await mcp(line.org.apiKey);
    assert.deepEqual(key.status.billing, shown.status.billing);
  });
});
