// Setting a SIM line's number (PATCH /v1/admin/devices/{id} `sims`, contract §13) refused: an
// unknown phone is 404, a bad number or a line the phone does not have 400, a number another
// phone or line carries 409 phone_number_taken, a line carrying a cell with another number 409
// line_carries_cell. Each refusal changes nothing: no number, no cell, no audit record.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, admin, useApp } from '../../../test/harness.ts';
import { createCell } from '../../../test/support/cells.ts';
import { mobilePhone, nextNumber, twoSims } from '../../../test/support/mobile.ts';

describe("setting a SIM line's number, refused", () => {
  const t = useApp();

  const patch = (id: string, sims: unknown) =>
    t.app.inject({ method: 'PATCH', url: `/v1/admin/devices/${id}`, headers: admin, payload: { sims } });
  const lines = async (id: string) =>
    (await t.app.inject({ url: `/v1/admin/devices/${id}`, headers: admin }))
      .json()
      .sims.map((s: { phone_number: string | null; cell_id: string | null }) => [s.phone_number, s.cell_id]);
  const updates = async (id: string) =>
    (await t.app.inject({ url: `/v1/admin/audit?target_id=${id}`, headers: admin }))
      .json()
      .entries.filter((e: { action: string }) => e.action === 'device.update').length;
  const refused = (response: Awaited<ReturnType<typeof patch>>, status: number, field: string, code: string) => {
    assert.equal(response.statusCode, status, response.body);
    assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
    assert.deepEqual(
      response.json().errors.map((e: { field: string; code: string }) => [e.field, e.code]),
      [[field, code]],
    );
  };
  /** A phone registered with redacted numbers: two lines without a number. */
  const redactedPhone = () => mobilePhone(t, twoSims('********0001', '********0002'));

  it('an unknown phone is 404', async () => {
    const response = await patch('dev_unknown', [{ sim_number: 1, phone_number: nextNumber() }]);
    assert.equal(response.statusCode, 404, response.body);
    assert.equal(response.json().code, 'not_found');
  });

  it('a number that is not E.164, and a malformed sims list, are 400', async () => {
    const phone = await redactedPhone();
    refused(
      await patch(phone.id, [{ sim_number: 1, phone_number: '0815 12345' }]),
      400,
      'sims.0.phone_number',
      'invalid_phone_number',
    );
    refused(
      await patch(phone.id, [{ sim_number: 2, phone_number: '********0002' }]),
      400,
      'sims.0.phone_number',
      'invalid_phone_number',
    );
    for (const sims of [[], [{ sim_number: 0, phone_number: nextNumber() }], [{ sim_number: 1 }], 'x'])
      assert.equal((await patch(phone.id, sims)).statusCode, 400, JSON.stringify(sims));
    assert.deepEqual(await lines(phone.id), [
      [null, null],
      [null, null],
    ]);
    assert.equal(await updates(phone.id), 0);
  });

  it('a SIM the phone did not report, one given twice, or any SIM of a native phone is 400', async () => {
    const phone = await redactedPhone();
    refused(
      await patch(phone.id, [{ sim_number: 3, phone_number: nextNumber() }]),
      400,
      'sims.0.sim_number',
      'unknown_sim',
    );
    refused(
      await patch(phone.id, [
        { sim_number: 1, phone_number: nextNumber() },
        { sim_number: 1, phone_number: nextNumber() },
      ]),
      400,
      'sims.1.sim_number',
      'duplicate',
    );
    // The first line of a list is not kept when a later one is refused.
    refused(
      await patch(phone.id, [
        { sim_number: 1, phone_number: nextNumber() },
        { sim_number: 4, phone_number: nextNumber() },
      ]),
      400,
      'sims.1.sim_number',
      'unknown_sim',
    );
    assert.deepEqual(await lines(phone.id), [
      [null, null],
      [null, null],
    ]);
    const native = (
      await t.app.inject({
        method: 'POST',
        url: '/v1/admin/devices',
        headers: admin,
        payload: { phone_number: nextNumber() },
      })
    ).json();
    const response = await patch(native.id, [{ sim_number: 1, phone_number: nextNumber() }]);
    refused(response, 400, 'sims.0.sim_number', 'unknown_sim');
    assert.match(response.json().detail, /one line, its phone_number/);
  });

  it("a number another phone carries (its number or a line's), or this phone's other line, is 409 phone_number_taken", async () => {
    const phone = await redactedPhone();
    const [lineNumber, nativeNumber] = [nextNumber(), nextNumber()];
    await mobilePhone(t, twoSims('********0003', lineNumber));
    await t.app.inject({
      method: 'POST',
      url: '/v1/admin/devices',
      headers: admin,
      payload: { phone_number: nativeNumber },
    });
    for (const taken of [lineNumber, nativeNumber]) {
      const response = await patch(phone.id, [{ sim_number: 1, phone_number: taken }]);
      refused(response, 409, 'sims.0.phone_number', 'phone_number_taken');
      assert.equal(response.json().code, 'conflict');
    }
    const own = nextNumber();
    assert.equal((await patch(phone.id, [{ sim_number: 1, phone_number: own }])).statusCode, 200);
    refused(
      await patch(phone.id, [{ sim_number: 2, phone_number: own }]),
      409,
      'sims.0.phone_number',
      'phone_number_taken',
    );
    const same = nextNumber();
    refused(
      await patch(phone.id, [
        { sim_number: 1, phone_number: same },
        { sim_number: 2, phone_number: same },
      ]),
      409,
      'sims.1.phone_number',
      'phone_number_taken',
    );
    assert.deepEqual(await lines(phone.id), [
      [own, null],
      [null, null],
    ]);
    // A native phone cannot take a line's number either.
    const native = await t.app.inject({
      method: 'POST',
      url: '/v1/admin/devices',
      headers: admin,
      payload: { phone_number: own },
    });
    assert.equal(native.statusCode, 409, native.body);
  });

  it('a line carrying a cell keeps its number: another one is 409 line_carries_cell, the same one changes nothing', async () => {
    const number = nextNumber();
    const phone = await mobilePhone(t, twoSims(number, '********0004'));
    // Cells take free lines oldest first: earlier tests' lines go before this one's.
    const org = await activeOrganization(t);
    let cell = await createCell(t, org.headers);
    while (cell.phone_number !== number) {
      assert.equal(cell.status, 'active', 'a free line took the cell');
      cell = await createCell(t, org.headers);
    }
    refused(
      await patch(phone.id, [{ sim_number: 1, phone_number: nextNumber() }]),
      409,
      'sims.0.phone_number',
      'line_carries_cell',
    );
    assert.equal((await patch(phone.id, [{ sim_number: 1, phone_number: number }])).statusCode, 200);
    assert.deepEqual(await lines(phone.id), [
      [number, cell.id],
      [null, null],
    ]);
  });
});
