// `cellgate send --wait` and phones that cannot report delivery (contract §4): against a
// simulated phone stating delivery_reports: false the wait ends at `sent` and says why; a wait
// that times out blames the phone only when the cell's phone is offline.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { listeningWorld, Reports, type World } from '../../test/simulator/support.ts';
import { runCli } from '../../test/support/cli-agent.ts';

describe('cellgate send --wait and delivery reports', () => {
  let world: World;
  let env: Record<string, string>;
  before(async () => {
    world = await listeningWorld();
    env = { CELLGATE_API_KEY: world.org.apiKey, CELLGATE_BASE_URL: world.baseUrl };
  });
  after(() => world.close());

  it('ends at sent for a simulated phone that states no delivery reports, with a line saying so', async () => {
    const { cellId, device } = await world.cell();
    const reports = new Reports();
    await world.simulate(device, { capabilities: { delivery_reports: false }, onReport: reports.record });
    const cell = (await world.t.app.inject({ url: `/v1/cells/${cellId}`, headers: world.org.headers })).json();
    assert.deepEqual(cell.capabilities, { delivery_reports: false, mms_send: true, mms_receive: true });

    const result = await runCli(
      ['send', '--wait', '--timeout', '30', '--cell', cellId, '--to', '+14155550123', 'No receipts here'],
      env,
    );
    assert.equal(result.status, 0, result.stderr);
    const id = /^(msg_\w+) queued/.exec(result.stdout)?.[1];
    assert.ok(id, result.stdout);
    assert.match(
      result.stdout,
      new RegExp(`^${id} was sent; the cell's phone does not report delivery, so sent is as far as it goes$`, 'm'),
    );
    assert.match(result.stdout, /^status +sent$/m);
    assert.doesNotMatch(result.stderr, /offline|still/);
    // The phone reported sent and nothing after it.
    assert.deepEqual(reports.of(id), ['sent']);
  });

  it('times out without blaming a phone that is online', async () => {
    const { cellId, device } = await world.cell();
    // Online (it just called in) but not polling: the message stays queued.
    assert.equal(
      (
        await world.t.app.inject({
          method: 'POST',
          url: '/v1/device/heartbeat',
          headers: { 'x-phone-key': device.key },
        })
      ).statusCode,
      200,
    );
    const result = await runCli(
      ['send', '--wait', '--timeout', '1', '--cell', cellId, '--to', '+14155550124', 'Nobody polls'],
      env,
    );
    assert.equal(result.status, 1);
    assert.match(result.stderr, /is still queued after 1 s \(the phone is online but has not picked it up yet\)/);
    assert.doesNotMatch(result.stderr, /offline/);
  });

  it('times out blaming the phone when it is offline', async () => {
    const { cellId } = await world.cell();
    const result = await runCli(
      ['send', '--wait', '--timeout', '1', '--cell', cellId, '--to', '+14155550125', 'Phone is off'],
      env,
    );
    assert.equal(result.status, 1);
    assert.match(
      result.stderr,
      /is still queued after 1 s \(the cell's phone is offline; it picks the message up when it calls in again\)/,
    );
  });
});
