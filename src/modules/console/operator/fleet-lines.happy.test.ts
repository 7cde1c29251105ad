// The fleet console shows a dual-SIM phone's two lines (issue 34): in its fleet row each SIM with
// its number and the cell it carries (cells of two organizations, as pairing may give them), its
// queue counting both cells; on its page each line with its carrier, cell and organization.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, admin, useApp } from '../../../../test/harness.ts';
import { createCell } from '../../../../test/support/cells.ts';
import { mobilePhone, nextNumber, twoSims } from '../../../../test/support/mobile.ts';
import { getOperatorPage, signInOperator, type OperatorSignIn } from '../../../../test/support/console-operator.ts';
import { page as read, textOf } from '../../../../test/support/page.ts';

describe('operator console: a dual-SIM phone’s lines', () => {
  const t = useApp();
  let operator: OperatorSignIn;
  const numbers = [nextNumber(), nextNumber()];
  let phoneId: string;

  before(async () => {
    operator = await signInOperator(t);
    phoneId = (await mobilePhone(t, twoSims(numbers[0], numbers[1]))).id;
    const shop = await activeOrganization(t);
    const clinic = await activeOrganization(t);
    const first = await createCell(t, shop.headers, 'Shop front desk');
    const second = await createCell(t, clinic.headers, 'Clinic reminders');
    assert.deepEqual([first.phone_number, second.phone_number], numbers);
    for (const [org, cell, count] of [
      [shop, first, 1],
      [clinic, second, 2],
    ] as const)
      for (let i = 0; i < count; i += 1) {
        const sent = await t.app.inject({
          method: 'POST',
          url: `/v1/cells/${cell.id}/messages/send`,
          headers: org.headers,
          payload: { to: '+14155550199', body: 'queued' },
        });
        assert.equal(sent.statusCode, 202, sent.body);
      }
  });

  it('the fleet row names each SIM with its number and cell, and queues both cells', async () => {
    const page = await getOperatorPage(t, '/console/operator/fleet', operator);
    assert.equal(page.statusCode, 200);
    // The phone goes by its first SIM's number.
    const row = read(page).row(/^All phones: /, new RegExp(`^\\${numbers[0]}\\s`));
    const cells = row['Cell and organization'];
    assert.ok(cells.startsWith(`SIM 1 ${numbers[0]}: Shop front desk `), cells);
    assert.ok(cells.includes(` SIM 2 ${numbers[1]}: Clinic reminders `), cells);
    assert.equal(row.Queued, '3');
  });

  it("the phone's page lists its SIM lines with carrier, cell and organization", async () => {
    const page = await getOperatorPage(t, `/console/operator/devices/${phoneId}`, operator);
    assert.equal(page.statusCode, 200);
    const phone = read(page);
    const [first, second] = phone
      .within(phone.getByText('SIM lines', { selector: 'dt' }).nextElementSibling as HTMLElement)
      .getAllByRole('listitem')
      .map(textOf);
    assert.match(first, new RegExp(`^SIM 1 \\${numbers[0]} T-Mobile: Shop front desk cell_\\w+, `));
    assert.match(second, new RegExp(`^SIM 2 \\${numbers[1]} Mint: Clinic reminders cell_\\w+, `));
    assert.equal(phone.definition('Queued for its cells'), '3');
  });

  it('a one-line phone keeps its single cell column and no SIM list', async () => {
    const added = await t.app.inject({
      method: 'POST',
      url: '/v1/admin/devices',
      headers: admin,
      payload: { phone_number: nextNumber(), label: 'One line' },
    });
    assert.equal(added.statusCode, 201, added.body);
    const page = await getOperatorPage(t, `/console/operator/devices/${added.json().id}`, operator);
    const phone = read(page);
    assert.equal(phone.queryByText('SIM lines'), null);
    assert.equal(phone.definition('Queued for its cell'), '0');
  });
});
