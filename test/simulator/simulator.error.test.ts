import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { UsageError } from '../../src/cli/admin.ts';
import { deviceCommand, startSimulatedDevice } from '../../src/cli/device-simulator.ts';
import { admin } from '../harness.ts';
import { listeningWorld, Reports, type World } from './support.ts';

const problem = (status: number, code: string) =>
  new Response(
    JSON.stringify({ type: `about:blank`, title: code, status, detail: 'injected', code, request_id: 'req_test' }),
    {
      status,
      headers: { 'content-type': 'application/problem+json' },
    },
  );

describe('device simulator: failures on the way', () => {
  let world: World;
  before(async () => {
    world = await listeningWorld();
  });
  after(() => world.close());

  it('retries a report whose answer was lost with the same event_id, and the service counts it once', async () => {
    const { cellId, device } = await world.cell();
    const reports = new Reports();
    const eventIds: string[] = [];
    const lostOnce = new Set<string>();
    const flaky: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (String(input).endsWith('/events')) {
        const eventId = JSON.parse(String(init?.body)).event_id as string;
        eventIds.push(eventId);
        // The service applied the report, but the phone never hears back.
        if (!lostOnce.has(eventId)) {
          lostOnce.add(eventId);
          throw new TypeError('fetch failed', { cause: new Error('ECONNRESET') });
        }
      }
      return response;
    };
    const phone = await world.simulate(device, { fetch: flaky, onReport: reports.record });
    const id = await world.send(cellId, '+14155550140', 'lost answers');
    await reports.until(id, 'delivered');

    assert.equal(eventIds.length, 4);
    assert.equal(eventIds[0], eventIds[1], 'the sent report is retried with its event_id');
    assert.equal(eventIds[2], eventIds[3], 'the delivered report is retried with its event_id');
    assert.notEqual(eventIds[0], eventIds[2], 'each report has its own event_id');
    assert.equal((await world.message(cellId, id)).status, 'delivered');
    assert.equal(phone.stats.retries, 2);
    assert.equal(phone.stats.errors, 0);
  });

  it('waits out a 503 on a report and on a claim, then carries on', async () => {
    const { cellId, device } = await world.cell();
    const reports = new Reports();
    let unavailable = { claims: 1, reports: 1 };
    const flaky: typeof fetch = async (input, init) => {
      const url = String(input);
      if (url.includes('/messages/outbound') && unavailable.claims > 0) {
        unavailable = { ...unavailable, claims: unavailable.claims - 1 };
        return problem(503, 'unavailable');
      }
      if (url.endsWith('/events') && unavailable.reports > 0) {
        unavailable = { ...unavailable, reports: unavailable.reports - 1 };
        return problem(503, 'unavailable');
      }
      return fetch(input, init);
    };
    const phone = await world.simulate(device, { fetch: flaky, onReport: reports.record });
    const id = await world.send(cellId, '+14155550141', 'after an outage');
    await reports.until(id, 'delivered');
    assert.equal((await world.message(cellId, id)).status, 'delivered');
    assert.equal(phone.stats.retries, 1);
  });

  it('stops by itself when its key is rotated (401), and refuses to start on an unknown key', async () => {
    const { device } = await world.cell();
    const phone = await world.simulate(device);
    const rotated = await world.t.app.inject({
      method: 'POST',
      url: `/v1/admin/devices/${device.id}/rotate-key`,
      headers: admin,
    });
    assert.equal(rotated.statusCode, 200);
    await phone.stopped;
    assert.ok(phone.stats.errors >= 1);

    await assert.rejects(
      startSimulatedDevice({ baseUrl: world.baseUrl, key: device.key, logger: () => {} }),
      /heartbeat: 401 unauthenticated/,
    );
  });

  it('rejects a fail rate outside 0..1 before calling the service', async () => {
    for (const failRate of [-0.1, 1.5, Number.NaN]) {
      await assert.rejects(startSimulatedDevice({ baseUrl: world.baseUrl, key: 'cg_dev_x', failRate }), RangeError);
    }
  });
});

describe('cellgate device simulate: bad command lines', () => {
  const base = ['simulate', '--key', 'cg_dev_abcdefghijklmnop'];
  const cases: [string, string[], RegExp][] = [
    [
      'an unknown action',
      ['emulate', '--key', 'cg_dev_x'],
      /unknown device action "emulate": the actions are simulate, run and doctor/,
    ],
    ['no key', ['simulate'], /--key must be a device key/],
    ['an agent key', ['simulate', '--key', 'cg_live_abc'], /--key must be a device key/],
    ['an unknown flag', [...base, '--bogus'], /Unknown option '--bogus'/],
    ['a fail rate above 1', [...base, '--fail-rate', '1.5'], /--fail-rate must be a number from 0 to 1/],
    ['a fail rate that is not a number', [...base, '--fail-rate', 'often'], /--fail-rate must be a number from 0 to 1/],
    ['an empty fail rate', [...base, '--fail-rate', ''], /--fail-rate must be a number from 0 to 1/],
    ['a negative delivery delay', [...base, '--delivery-delay-ms=-1'], /--delivery-delay-ms must be a number/],
    ['a poll wait above 30 s', [...base, '--poll-wait', '31'], /--poll-wait must be a number from 0 to 30/],
    ['--inbound-from without --inbound-text', [...base, '--inbound-from', '+14155550123'], /go together/],
    ['--inbound-text without --inbound-from', [...base, '--inbound-text', 'hi'], /go together/],
  ];
  for (const [name, args, message] of cases) {
    it(`rejects ${name} with a usage error`, async () => {
      await assert.rejects(deviceCommand(args, 'http://127.0.0.1:1'), (error: unknown) => {
        assert.ok(error instanceof UsageError, String(error));
        assert.match(error.message, message);
        return true;
      });
    });
  }
});
