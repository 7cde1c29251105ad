// Paid tools (create_cell, a broadcast through start_cycle) take confirm: true; without it (or
// with false) they do nothing and answer the price with confirmation_required (docs/mcp.md),
// through both SDK client generations.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { verifiedOrganization } from '../../../test/harness.ts';
import { podWithLines, ok, type Org } from '../../../test/support/pods.ts';
import { SDK_CLIENTS, structured, useMcpClient } from '../../../test/support/mcp-client.ts';

for (const { sdk, connect } of SDK_CLIENTS) {
  describe(`confirmation of paid tools through the ${sdk} SDK client`, () => {
    let org: Org;
    let pod: { id: string };
    const { t, client, open } = useMcpClient(connect, async (app) => {
      ({ org, pod } = await podWithLines(app, 2));
      return org.apiKey;
    });
    const cellCount = async (who: Org) => (await ok(t, who, 'GET', '/v1/cells')).cells.length;

    it('create_cell without confirm, or with false, answers the price and creates nothing; with true it creates', async () => {
      const before = await cellCount(org);
      for (const confirm of [undefined, false]) {
        const result = await client.callTool('create_cell', {
          display_name: 'Quoted',
          ...(confirm === undefined ? {} : { confirm }),
        });
        assert.equal(result.isError, undefined, JSON.stringify(result));
        const answer = structured(result);
        assert.equal(answer.confirmation_required, true);
        assert.equal(answer.cell, undefined);
        assert.equal(answer.quote.currency, 'USD');
        assert.match(answer.quote.amount_usd, /^\d+\.\d{2}$/);
        assert.equal(typeof answer.quote.covered_by, 'string');
      }
      assert.equal(await cellCount(org), before, 'nothing created');
      const created = structured(await client.callTool('create_cell', { display_name: 'Confirmed', confirm: true }));
      assert.equal(created.confirmation_required, undefined);
      assert.equal(created.cell.display_name, 'Confirmed');
      assert.equal(await cellCount(org), before + 1);
    });

    it('create_cell quotes the setup payment of an organization without a tier, charging nothing', async () => {
      assert.equal(t.config.billing, true, 'billing is on by default');
      const unpaid = await verifiedOrganization(t);
      const agent = await open(unpaid.apiKey);
      const answer = structured(await agent.callTool('create_cell', { display_name: 'Sales' }));
      assert.equal(answer.confirmation_required, true);
      assert.equal(answer.quote.covered_by, 'payment');
      assert.equal(answer.quote.payment.intent, 'setup');
      assert.equal(answer.quote.amount_usd, answer.quote.payment.amount_usd);
    });

    it('a broadcast without confirm answers its price and queues nothing; with confirm it starts', async () => {
      const args = {
        pod_id: pod.id,
        mode: 'broadcast',
        body: 'We open at 9.',
        to: ['+14155550190', '+1 415 555 0190', '+14155550191'],
      };
      for (const confirm of [undefined, false]) {
        const answer = structured(
          await client.callTool('start_cycle', { ...args, ...(confirm === undefined ? {} : { confirm }) }),
        );
        assert.equal(answer.confirmation_required, true);
        assert.equal(answer.job, undefined);
        assert.match(answer.quote.detail, /^2 message\(s\) of 1 segment\(s\)/, 'duplicates count once');
      }
      assert.deepEqual(
        (await ok(t, org, 'GET', `/v1/pods/${pod.id}/jobs`)).jobs.filter(
          (j: { mode: string }) => j.mode === 'broadcast',
        ),
        [],
      );
      const started = structured(await client.callTool('start_cycle', { ...args, confirm: true }));
      assert.equal(started.confirmation_required, undefined);
      assert.equal(started.job.mode, 'broadcast');
      assert.equal(started.job.counts.total, 2);
    });

    it('refuses a non-boolean confirm as invalid_request naming the field', async () => {
      const result = await client.callTool('create_cell', { display_name: 'X', confirm: 'yes' });
      assert.equal(result.isError, true);
      const error = JSON.parse((result.content as { text: string }[])[0].text).error;
      assert.equal(error.code, 'invalid_request');
      assert.equal(error.field, 'confirm');
    });
  });
}
