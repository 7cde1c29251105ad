// The operator console's inventory: a phone added from the fleet (its key shown once, and working),
// its settings changed, and a free phone removed; each in the operator audit log as the API's.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, useApp } from '../../../../test/harness.ts';
import { setCookies } from '../../../../test/support/console.ts';
import {
  getOperatorPage,
  postOperatorForm,
  signInOperator,
  type OperatorSignIn,
} from '../../../../test/support/console-operator.ts';
import { page } from '../../../../test/support/page.ts';
import { uniquePhoneNumber } from '../../../../test/support/devices.ts';

describe('operator console: the inventory', () => {
  const t = useApp();
  let operator: OperatorSignIn;
  let deviceId: string;
  let number: string;

  before(async () => {
    operator = await signInOperator(t);
    number = uniquePhoneNumber();
  });

  const device = async () => {
    const response = await t.app.inject({ url: `/v1/admin/devices/${deviceId}`, headers: admin });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };

  it('adds a phone from the fleet and shows its key once, on its page', async () => {
    const fleet = page(await getOperatorPage(t, '/console/operator/fleet', operator));
    assert.equal(fleet.href('Add a phone'), '/console/operator/devices/new');
    const form = await getOperatorPage(t, '/console/operator/devices/new', operator);
    assert.equal(form.statusCode, 200);
    const field = page(form).getByLabelText<HTMLInputElement>('Phone number');
    assert.deepEqual([field.name, field.type], ['phone_number', 'tel']);

    const added = await postOperatorForm(t, '/console/operator/devices', operator, {
      phone_number: `+1 ${number.slice(2, 5)} ${number.slice(5, 8)} ${number.slice(8)}`,
      label: 'Shelf 2, slot 4',
      send_rate_per_minute: '12',
      daily_send_limit: '',
    });
    assert.equal(added.statusCode, 303, added.body);
    const location = String(added.headers.location);
    assert.match(location, /^\/console\/operator\/devices\/dev_\w+$/);
    deviceId = location.split('/').at(-1) as string;
    const flash = setCookies(added).find((cookie) => cookie.startsWith('cg_operator_device_key='));
    assert.ok(flash, 'the key rides a flash cookie');
    assert.match(flash, new RegExp(`Path=${location};`));

    const headers = { cookie: `${operator.cookie}; ${flash.split(';')[0]}` };
    const shown = await t.app.inject({ url: location, headers });
    assert.equal(shown.statusCode, 200);
    const keyPage = page(shown);
    keyPage.getByRole('heading', { name: 'Phone added: its device key' });
    const key = keyPage.valueOf('Device key for X-Phone-Key');
    assert.match(key, /^cg_dev_[A-Za-z0-9]+$/, 'the key is on the page');
    // The flash is spent: the next visit shows no key.
    assert.ok(setCookies(shown).some((cookie) => /^cg_operator_device_key=;.*Max-Age=0/.test(cookie)));
    assert.doesNotMatch((await getOperatorPage(t, location, operator)).body, /cg_dev_/);

    // The phone is in the inventory as typed, and its key works on the device surface.
    const view = await device();
    assert.deepEqual(
      [view.phone_number, view.label, view.send_rate_per_minute, view.daily_send_limit],
      [number, 'Shelf 2, slot 4', 12, 300],
    );
    const config = await t.app.inject({ url: '/v1/device/config', headers: { 'x-phone-key': key } });
    assert.equal(config.statusCode, 200, config.body);
  });

  it("changes a phone's label, send rate and daily limit; an empty label clears it", async () => {
    const settings = page(await getOperatorPage(t, `/console/operator/devices/${deviceId}`, operator));
    assert.equal(settings.valueOf('Send rate (SMS segments per minute)'), '12');
    const saved = await postOperatorForm(t, `/console/operator/devices/${deviceId}/settings`, operator, {
      label: '',
      send_rate_per_minute: '30',
      daily_send_limit: '1000',
    });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(saved.headers.location, `/console/operator/devices/${deviceId}?notice=settings`);
    const view = await device();
    assert.deepEqual([view.label, view.send_rate_per_minute, view.daily_send_limit], [null, 30, 1000]);
    const after = page(await getOperatorPage(t, String(saved.headers.location), operator));
    after.getByText(/Saved: the phone claims at its new rate/);
  });

  it('removes a free phone after a confirmation page, back to the fleet', async () => {
    const confirm = await getOperatorPage(t, `/console/operator/devices/${deviceId}/remove`, operator);
    assert.equal(confirm.statusCode, 200);
    const asked = page(confirm);
    asked.getByRole('heading', { level: 1, name: `Remove ${number}?` });
    asked.getByText(/It carries no cell\./);
    const removed = await postOperatorForm(t, `/console/operator/devices/${deviceId}/remove`, operator);
    assert.equal(removed.statusCode, 303, removed.body);
    assert.equal(removed.headers.location, '/console/operator/fleet?notice=removed');
    assert.equal((await t.app.inject({ url: `/v1/admin/devices/${deviceId}`, headers: admin })).statusCode, 404);
    const fleet = page(await getOperatorPage(t, String(removed.headers.location), operator));
    fleet.getByText(/Removed: the phone left the inventory/);
    assert.equal((await getOperatorPage(t, `/console/operator/devices/${deviceId}`, operator)).statusCode, 404);

    const audit = await t.app.inject({ url: `/v1/admin/audit?target_id=${deviceId}`, headers: admin });
    assert.deepEqual(
      audit.json().entries.map((entry: { action: string }) => entry.action),
      ['device.delete', 'device.update', 'device.create'],
    );
  });
});
