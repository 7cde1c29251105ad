// The codes' long-poll over real sockets: an organization holds at most CELLGATE_MAX_STREAMS_PER_ORG
// waits (shared with MCP's waits), one more is 429 rate_limited, and a client that hangs up stops
// its wait and gives its slot back.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem } from '../../../test/harness.ts';
import { startListening, type McpTestApp } from '../../../test/support/mcp-client.ts';
import { activeLine } from '../../../test/support/messages.ts';
import { eventually } from '../../../test/support/stream-client.ts';

const CAP = 2;

describe('verification codes: the wait cap and hang-ups', () => {
  let t: McpTestApp;
  before(async () => {
    t = await startListening({ env: { CELLGATE_MAX_STREAMS_PER_ORG: String(CAP) } });
  });
  after(() => t.close());

  it('refuses a wait beyond the cap with 429 rate_limited, and a hang-up gives the slot back', async () => {
    const line = await activeLine(t);
    const url = `${t.origin}/v1/cells/${line.cell.id}/codes?wait=30`;
    const wait = () => {
      const hangUp = new AbortController();
      const response = fetch(url, { headers: line.org.headers, signal: hangUp.signal }).catch((e: Error) => e);
      return { hangUp, response };
    };
    const held = (count: number) =>
      eventually(
        () =>
          t.services.caps.mcpWaits.count(line.org.organizationId) === count && t.services.codes.activeWaits === count,
        `${count} waiting code requests`,
      );
    const waits = [wait(), wait()];
    await held(CAP);
    expectProblem(
      await t.app.inject({ url: `/v1/cells/${line.cell.id}/codes?wait=30`, headers: line.org.headers }),
      429,
      'rate_limited',
    );
    // A listing that does not wait holds no slot and is answered at the cap.
    const immediate = await t.app.inject({ url: `/v1/cells/${line.cell.id}/codes`, headers: line.org.headers });
    assert.equal(immediate.statusCode, 200, immediate.body);
    waits[0].hangUp.abort();
    await held(CAP - 1);
    waits.push(wait());
    await held(CAP);
    for (const { hangUp } of waits) hangUp.abort();
    await Promise.all(waits.map((w) => w.response));
    await held(0);
  });
});
