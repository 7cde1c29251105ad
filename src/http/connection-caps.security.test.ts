// Caps on long-lived connections (CELLGATE_MAX_STREAMS_PER_ORG, here 2; 4 long-polls per device):
// each kind refuses one more at the cap, leaves other organizations alone, and admits again once a
// held connection ends. Real sockets throughout: the slots are given back on disconnect.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem } from '../../test/harness.ts';
import { activeLine, inbound, queued } from '../../test/support/messages.ts';
import { eventually, StreamClient, streamUrl } from '../../test/support/stream-client.ts';
import { consoleLine, LiveClient } from '../../test/support/console-conversations.ts';
import { mcpClient, startListening, structured, toolErrorOf, type McpTestApp } from '../../test/support/mcp-client.ts';
import { CAP_RETRY_AFTER_SECONDS, DEVICE_LONG_POLLS } from './connection-caps.ts';

const CAP = 2;

describe('connection caps', () => {
  let t: McpTestApp;
  let url: string;
  before(async () => {
    t = await startListening({ env: { CELLGATE_MAX_STREAMS_PER_ORG: String(CAP) } });
    url = await streamUrl(t);
  });
  after(() => t.close());

  it("closes an organization's stream beyond the cap with 1013, leaves other organizations alone, and admits again after a close", async () => {
    const line = await activeLine(t);
    const other = await activeLine(t);
    const open = await Promise.all([
      StreamClient.ready(url, { headers: line.org.headers }),
      StreamClient.ready(url, { headers: line.org.headers }),
    ]);
    const refused = new StreamClient(url, { headers: line.org.headers });
    const closed = await refused.closed;
    assert.equal(closed.code, 1013);
    assert.match(closed.reason, /At most 2 concurrent event streams per organization/);
    assert.equal(refused.frames.length, 0, 'no frame before the close');
    // Other organizations have caps of their own.
    const theirs = await StreamClient.ready(url, { headers: other.org.headers });
    // The refused socket held nothing; a closed one gives its slot back.
    assert.equal(t.services.caps.streams.count(line.org.organizationId), CAP);
    open[0].socket.close();
    await eventually(
      () => t.services.caps.streams.count(line.org.organizationId) === CAP - 1,
      "the closed stream's slot given back",
    );
    const again = await StreamClient.ready(url, { headers: line.org.headers });
    // A terminated socket (no close handshake) gives its slot back too.
    again.socket.terminate();
    await eventually(
      () => t.services.caps.streams.count(line.org.organizationId) === CAP - 1,
      "the terminated stream's slot given back",
    );
    for (const client of [open[1], theirs]) client.socket.close();
    await eventually(
      () =>
        t.services.caps.streams.count(line.org.organizationId) === 0 &&
        t.services.caps.streams.count(other.org.organizationId) === 0,
      'every slot given back',
    );
  });

  it('answers a console live view beyond the cap with 429 rate_limited and Retry-After, and admits again after a hang-up', async () => {
    const line = await consoleLine(t);
    const other = await consoleLine(t);
    const path = `/console/cells/${line.cell.id}/live`;
    const open = await Promise.all([
      LiveClient.ready(t, path, line.signIn.headers),
      LiveClient.ready(t, '/console/cells/live', line.signIn.headers),
    ]);
    const refused = await t.app.inject({ method: 'GET', url: path, headers: line.signIn.headers });
    const problem = expectProblem(refused, 429, 'rate_limited');
    assert.equal(refused.headers['retry-after'], String(CAP_RETRY_AFTER_SECONDS));
    assert.match(problem.detail, /At most 2 concurrent console live views per organization/);
    // The cells list's live view counts against the same cap.
    expectProblem(
      await t.app.inject({ method: 'GET', url: '/console/cells/live', headers: line.signIn.headers }),
      429,
      'rate_limited',
    );
    const theirs = await LiveClient.ready(t, `/console/cells/${other.cell.id}/live`, other.signIn.headers);
    open[0].close();
    await eventually(
      () => t.services.caps.liveViews.count(line.org.organizationId) === CAP - 1,
      'the slot of the closed view given back',
    );
    const again = await LiveClient.ready(t, path, line.signIn.headers);
    for (const client of [open[1], again, theirs]) client.close();
    await eventually(() => t.services.caps.liveViews.count(line.org.organizationId) === 0, 'every slot given back');
  });

  it('answers an MCP wait beyond the cap with a rate_limited tool error, and admits again once the waits end', async () => {
    const line = await activeLine(t);
    const client = await mcpClient(t, line.org.apiKey);
    const since = t.clock.now().toISOString();
    const wait = (participant: string) =>
      client.callTool({
        name: 'wait_for_reply',
        arguments: { cell_id: line.cell.id, participant, since, timeout_s: 50 },
      });
    const waiting = [wait('+14155550101'), wait('+14155550102')];
    await eventually(
      () => t.services.caps.mcpWaits.count(line.org.organizationId) === CAP,
      'both waits holding their slots',
    );
    const error = toolErrorOf((await wait('+14155550103')) as never);
    assert.equal(error.code, 'rate_limited');
    assert.equal(error.retry_after_seconds, CAP_RETRY_AFTER_SECONDS);
    assert.match(error.message, /At most 2 concurrent MCP waits per organization/);
    // Another organization waits (and finds its reply) while this one is at the cap.
    const other = await activeLine(t);
    await inbound(t, other, { from: '+14155550109', body: 'elsewhere' });
    const theirs = await (
      await mcpClient(t, other.org.apiKey)
    ).callTool({ name: 'wait_for_reply', arguments: { cell_id: other.cell.id, since, timeout_s: 1 } });
    assert.equal(structured(theirs).message.body, 'elsewhere');
    // The replies end both waits; their slots come back.
    await inbound(t, line, { from: '+14155550101', body: 'one' });
    await inbound(t, line, { from: '+14155550102', body: 'two' });
    assert.deepEqual(
      (await Promise.all(waiting)).map((r) => structured(r).message.body),
      ['one', 'two'],
    );
    assert.equal(t.services.caps.mcpWaits.count(line.org.organizationId), 0);
    assert.equal(structured(await wait('+14155550102')).message.body, 'two');
    await client.close();
  });

  it("answers a device's long-poll beyond 4 with 429 rate_limited and Retry-After, and admits again after a hang-up", async () => {
    const line = await activeLine(t);
    const outbound = `${t.origin}/v1/device/messages/outbound`;
    const poll = () => {
      const hangUp = new AbortController();
      const response = fetch(`${outbound}?wait=30`, { headers: line.device.headers, signal: hangUp.signal }).catch(
        (error: Error) => error,
      );
      return { hangUp, response };
    };
    const polls = Array.from({ length: DEVICE_LONG_POLLS }, poll);
    const held = (count: number) =>
      eventually(() => t.services.caps.deviceLongPolls.count(line.device.id) === count, `${count} waiting claims`);
    await held(DEVICE_LONG_POLLS);
    const refused = await t.app.inject({ url: '/v1/device/messages/outbound?wait=30', headers: line.device.headers });
    const problem = expectProblem(refused, 429, 'rate_limited');
    assert.equal(refused.headers['retry-after'], String(CAP_RETRY_AFTER_SECONDS));
    assert.match(problem.detail, /At most 4 concurrent long-polls per device/);
    // A claim that does not wait holds no slot and is answered at the cap.
    const immediate = await t.app.inject({ url: '/v1/device/messages/outbound', headers: line.device.headers });
    assert.equal(immediate.statusCode, 200, immediate.body);
    // Another device is unaffected.
    const other = await activeLine(t);
    await queued(t, other, { to: '+14155550123', body: 'for the other phone' });
    const theirs = await t.app.inject({ url: '/v1/device/messages/outbound?wait=30', headers: other.device.headers });
    assert.equal(theirs.statusCode, 200, theirs.body);
    assert.equal(theirs.json().messages.length, 1);
    // A device that hangs up gives its slot back, and the next long-poll is admitted to wait.
    polls[0].hangUp.abort();
    await held(DEVICE_LONG_POLLS - 1);
    polls.push(poll());
    await held(DEVICE_LONG_POLLS);
    for (const { hangUp } of polls) hangUp.abort();
    await Promise.all(polls.map((p) => p.response));
    await held(0);
  });
});
