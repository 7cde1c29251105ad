import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, useApp } from '../../../test/harness.ts';
import { addDevice } from '../../../test/support/devices.ts';
import { activeLine, claim, queued, report, type Line } from '../../../test/support/messages.ts';
import { parseExposition, value, type Sample } from '../../../test/support/metrics.ts';
import { topErrorCodes } from './phones.ts';

describe('GET /metrics: per-phone series', () => {
  let line: Line;

  const t = useApp();
  before(async () => {
    line = await activeLine(t);
  });

  async function scrape() {
    const response = await t.app.inject({ url: '/metrics', headers: admin });
    assert.equal(response.statusCode, 200, response.body);
    return parseExposition(response.body);
  }
  const of = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
    value(samples, name, { device_id: line.device.id, phone_number: line.device.phoneNumber, ...labels });

  it('reports presence, heartbeat age and telemetry of a phone, by device id and phone number', async () => {
    const heartbeat = await t.app.inject({
      method: 'POST',
      url: '/v1/device/heartbeat',
      headers: line.device.headers,
      payload: { battery_pct: 14, charging: false, signal_dbm: -97 },
    });
    assert.equal(heartbeat.statusCode, 200);
    t.clock.advance(42_000);
    const { samples, types } = await scrape();
    assert.equal(of(samples, 'cellgate_device_online'), 1);
    assert.equal(of(samples, 'cellgate_device_heartbeat_age_seconds'), 42);
    assert.equal(of(samples, 'cellgate_device_battery_percent'), 14);
    assert.equal(of(samples, 'cellgate_device_charging'), 0);
    assert.equal(of(samples, 'cellgate_device_signal_dbm'), -97);
    for (const name of [
      'cellgate_device_online',
      'cellgate_device_heartbeat_age_seconds',
      'cellgate_device_battery_percent',
      'cellgate_device_charging',
      'cellgate_device_signal_dbm',
      'cellgate_device_queue_depth',
    ]) {
      assert.equal(types.get(name), 'gauge', name);
    }
    assert.equal(types.get('cellgate_device_messages_sent_total'), 'counter');
    assert.equal(types.get('cellgate_device_messages_failed_total'), 'counter');
  });

  it('leaves out what a phone never reported, and reports it offline once silent', async () => {
    const spare = await addDevice(t);
    const labels = { device_id: spare.id, phone_number: spare.phoneNumber };
    let { samples } = await scrape();
    assert.equal(value(samples, 'cellgate_device_online', labels), 0);
    assert.equal(value(samples, 'cellgate_device_queue_depth', labels), 0);
    assert.equal(value(samples, 'cellgate_device_messages_sent_total', labels), 0);
    for (const name of [
      'cellgate_device_heartbeat_age_seconds',
      'cellgate_device_battery_percent',
      'cellgate_device_charging',
      'cellgate_device_signal_dbm',
    ]) {
      assert.equal(value(samples, name, labels), undefined, name);
    }
    t.clock.advance(121_000);
    await t.services.devices.markSilentOffline();
    ({ samples } = await scrape());
    assert.equal(of(samples, 'cellgate_device_online'), 0);
    assert.ok((of(samples, 'cellgate_device_heartbeat_age_seconds') ?? 0) > 120);
  });

  it("reports the queue depth of the phone's cell, and counts sent and failed messages by error code", async () => {
    for (const body of ['one', 'two', 'three', 'four']) await queued(t, line, { to: '+14155550101', body });
    assert.equal(of((await scrape()).samples, 'cellgate_device_queue_depth'), 4);
    const claimed = await claim(t, line, '?limit=4');
    assert.equal(claimed.length, 4);
    assert.equal(of((await scrape()).samples, 'cellgate_device_queue_depth'), 0);
    assert.equal((await report(t, line, claimed[0].id, { event: 'sent' })).statusCode, 200);
    assert.equal((await report(t, line, claimed[1].id, { event: 'sent' })).statusCode, 200);
    assert.equal((await report(t, line, claimed[1].id, { event: 'delivered' })).statusCode, 200);
    assert.equal(
      (await report(t, line, claimed[2].id, { event: 'failed', error_code: 'generic_failure' })).statusCode,
      200,
    );
    assert.equal((await report(t, line, claimed[3].id, { event: 'failed' })).statusCode, 200);
    const { samples } = await scrape();
    assert.equal(of(samples, 'cellgate_device_messages_sent_total'), 2);
    assert.equal(of(samples, 'cellgate_device_messages_failed_total', { error_code: 'generic_failure' }), 1);
    assert.equal(of(samples, 'cellgate_device_messages_failed_total'), 2);
  });

  it('reports health (0 healthy, 1 degraded, 2 quarantined) and the pause of each phone', async () => {
    const fresh = line;
    const labels = { device_id: fresh.device.id, phone_number: fresh.device.phoneNumber };
    const first = await scrape();
    assert.deepEqual(
      [value(first.samples, 'cellgate_device_health', labels), value(first.samples, 'cellgate_device_paused', labels)],
      [0, 0],
    );
    assert.equal(first.types.get('cellgate_device_health'), 'gauge');
    assert.equal(first.types.get('cellgate_device_paused'), 'gauge');
    for (let i = 0; i < 5; i++) {
      const message = await queued(t, fresh, { to: '+14155550101', body: `blocked ${i}` });
      await claim(t, fresh);
      await report(t, fresh, message.id, { event: 'failed', error_code: 'generic_failure' });
      t.clock.advance(1_000);
    }
    const paused = await t.app.inject({
      method: 'POST',
      url: `/v1/admin/devices/${fresh.device.id}/pause`,
      headers: admin,
      payload: { reason: 'checking the SIM' },
    });
    assert.equal(paused.statusCode, 200, paused.body);
    const { samples } = await scrape();
    assert.deepEqual(
      [value(samples, 'cellgate_device_health', labels), value(samples, 'cellgate_device_paused', labels)],
      [2, 1],
    );
  });

  it("drops a removed phone's series", async () => {
    const spare = await addDevice(t);
    assert.equal(value((await scrape()).samples, 'cellgate_device_online', { device_id: spare.id }), 0);
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/v1/admin/devices/${spare.id}`, headers: admin })).statusCode,
      204,
    );
    assert.equal(value((await scrape()).samples, 'cellgate_device_online', { device_id: spare.id }), undefined);
  });
});

describe('topErrorCodes', () => {
  it('keeps a phone\'s most frequent codes, sums the rest as "other" and names a missing code "unknown"', () => {
    const rows = [
      { errorCode: 'a', count: 1 },
      { errorCode: 'b', count: 5 },
      { errorCode: null, count: 3 },
      { errorCode: 'c', count: 2 },
    ];
    assert.deepEqual(topErrorCodes(rows, 2), [
      { errorCode: 'b', count: 5 },
      { errorCode: 'unknown', count: 3 },
      { errorCode: 'other', count: 3 },
    ]);
    assert.deepEqual(
      topErrorCodes(rows, 4).map((r) => r.errorCode),
      ['b', 'unknown', 'c', 'a'],
    );
  });
});
