// GET /metrics shows a phone's SIM lines (issue 34): per line whether it carries a cell and that
// cell's queue, labelled by sim_number (two series a line, at most two lines a phone); the phone's
// queue depth counts both lines' cells. A phone of the native surface has one line, its number.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, admin, useApp } from '../../../test/harness.ts';
import { createCell } from '../../../test/support/cells.ts';
import { addDevice } from '../../../test/support/devices.ts';
import { mobilePhone, nextNumber, twoSims } from '../../../test/support/mobile.ts';
import { parseExposition, value } from '../../../test/support/metrics.ts';

describe('GET /metrics: SIM lines', () => {
  const t = useApp();

  const scrape = async () => {
    const response = await t.app.inject({ url: '/metrics', headers: admin });
    assert.equal(response.statusCode, 200, response.body);
    return parseExposition(response.body);
  };

  it('a dual-SIM phone: both lines with their cells and queues, the phone’s depth their sum', async () => {
    const numbers = [nextNumber(), nextNumber()];
    const phone = await mobilePhone(t, twoSims(numbers[0], null));
    const org = await activeOrganization(t);
    const first = await createCell(t, org.headers, 'SIM 1');
    const device = (await t.app.inject({ url: `/v1/admin/devices/${phone.id}`, headers: admin })).json();
    const phoneLabels = { device_id: phone.id, phone_number: device.phone_number as string };

    // SIM 2 has no number yet: it carries no cell, and says so with an empty number.
    const scraped = await scrape();
    const { types } = scraped;
    let { samples } = scraped;
    assert.equal(types.get('cellgate_device_sim_cell'), 'gauge');
    assert.equal(types.get('cellgate_device_sim_queue_depth'), 'gauge');
    const simCell = (sim: number, simPhone: string) =>
      value(samples, 'cellgate_device_sim_cell', {
        ...phoneLabels,
        sim_number: String(sim),
        sim_phone_number: simPhone,
      });
    assert.equal(simCell(1, numbers[0]), 1);
    assert.equal(simCell(2, ''), 0);
    assert.equal(
      samples.filter((s) => s.name === 'cellgate_device_sim_cell' && s.labels.device_id === phone.id).length,
      2,
    );

    const numbered = await t.app.inject({
      method: 'PATCH',
      url: `/v1/admin/devices/${phone.id}`,
      headers: admin,
      payload: { sims: [{ sim_number: 2, phone_number: numbers[1] }] },
    });
    assert.equal(numbered.statusCode, 200, numbered.body);
    const second = await createCell(t, org.headers, 'SIM 2');
    assert.equal(second.phone_number, numbers[1]);
    const send = async (cell: { id: string }) => {
      const response = await t.app.inject({
        method: 'POST',
        url: `/v1/cells/${cell.id}/messages/send`,
        headers: org.headers,
        payload: { to: '+14155550199', body: 'queued' },
      });
      assert.equal(response.statusCode, 202, response.body);
    };
    await send(first);
    await send(second);
    await send(second);

    ({ samples } = await scrape());
    assert.equal(simCell(1, numbers[0]), 1);
    assert.equal(simCell(2, numbers[1]), 1);
    assert.equal(simCell(2, ''), undefined, 'the line without a number is gone');
    const depth = (sim: number) =>
      value(samples, 'cellgate_device_sim_queue_depth', { ...phoneLabels, sim_number: String(sim) });
    assert.deepEqual([depth(1), depth(2)], [1, 2]);
    assert.equal(value(samples, 'cellgate_device_queue_depth', phoneLabels), 3);
  });

  it('a phone of the native surface has one line: its number, without a cell until one is made', async () => {
    const spare = await addDevice(t);
    const labels = { device_id: spare.id, phone_number: spare.phoneNumber, sim_number: '1' };
    const { samples } = await scrape();
    assert.equal(value(samples, 'cellgate_device_sim_cell', { ...labels, sim_phone_number: spare.phoneNumber }), 0);
    assert.equal(value(samples, 'cellgate_device_sim_queue_depth', labels), 0);
    assert.equal(
      samples.filter((s) => s.name === 'cellgate_device_sim_cell' && s.labels.device_id === spare.id).length,
      1,
    );
  });
});
