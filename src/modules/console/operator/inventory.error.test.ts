// Bad input on the inventory forms: each bad field answered on its field with what was typed kept,
// nothing added or changed; a phone carrying a cell is not removed; unknown phones are 404; forms
// without the session's CSRF token are refused.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, useApp } from '../../../../test/harness.ts';
import { postForm } from '../../../../test/support/console.ts';
import {
  getOperatorPage,
  postOperatorForm,
  signInOperator,
  type OperatorSignIn,
} from '../../../../test/support/console-operator.ts';
import { addDevice, uniquePhoneNumber, type TestDevice } from '../../../../test/support/devices.ts';
import { activeLine, type Line } from '../../../../test/support/messages.ts';
import { descriptionOf, page as read, textOf } from '../../../../test/support/page.ts';

const UNKNOWN = 'dev_01jdx1f2g3h4j5k6m7n8p9q0r1';

describe('operator console: the inventory, bad input', () => {
  const t = useApp();
  let operator: OperatorSignIn;
  let line: Line;
  let spare: TestDevice;

  before(async () => {
    line = await activeLine(t);
    spare = await addDevice(t, { label: 'Spare' });
    operator = await signInOperator(t);
  });

  const inventory = async () =>
    (await t.app.inject({ url: '/v1/admin/devices?limit=200', headers: admin })).json().devices as {
      id: string;
      label: string | null;
      send_rate_per_minute: number;
      daily_send_limit: number;
    }[];
  /** The page answered with the field `id` invalid, its error matching `message` announced with it. */
  const fieldError = (body: string, id: string, message: RegExp) => {
    const field = read(body).document.getElementById(id);
    assert.equal(field?.getAttribute('aria-invalid'), 'true', id);
    assert.match(descriptionOf(field), message);
  };

  it('answers each bad phone on its field, keeps what was typed and adds nothing', async () => {
    const before = (await inventory()).length;
    const good = { phone_number: uniquePhoneNumber(), label: '', send_rate_per_minute: '', daily_send_limit: '' };
    const cases: [Record<string, string>, number, string, RegExp][] = [
      [{ ...good, phone_number: ' ' }, 400, 'phone-number', /Enter the phone number/],
      // In the form's words, not the API's field name ("Phone_number must ...").
      [{ ...good, phone_number: '12345' }, 400, 'phone-number', /\. The phone number must be a valid phone number/],
      [{ ...good, phone_number: spare.phoneNumber }, 409, 'phone-number', /already in the inventory/],
      [{ ...good, send_rate_per_minute: 'fast' }, 400, 'phone-rate', /Enter a whole number/],
      [{ ...good, send_rate_per_minute: '2.5' }, 400, 'phone-rate', /Enter a whole number/],
      [{ ...good, send_rate_per_minute: '31' }, 400, 'phone-rate', /from 1 to 30/],
      [{ ...good, send_rate_per_minute: '0' }, 400, 'phone-rate', /from 1 to 30/],
      [{ ...good, daily_send_limit: '10001' }, 400, 'phone-daily', /from 1 to 10,000/],
      [{ ...good, daily_send_limit: '-1' }, 400, 'phone-daily', /Enter a whole number/],
      [{ ...good, label: 'x'.repeat(101) }, 400, 'phone-label', /at most 100 characters/],
    ];
    for (const [fields, status, id, message] of cases) {
      const page = await postOperatorForm(t, '/console/operator/devices', operator, fields);
      assert.equal(page.statusCode, status, `${JSON.stringify(fields)}: ${page.body.slice(0, 200)}`);
      assert.match(read(page).document.title, /^Error: Add a phone/);
      fieldError(page.body, id, message);
    }
    const kept = await postOperatorForm(t, '/console/operator/devices', operator, {
      ...good,
      send_rate_per_minute: 'x',
    });
    assert.equal(read(kept).valueOf('Phone number'), good.phone_number);
    assert.equal((await inventory()).length, before, 'nothing was added');
  });

  it("answers bad settings on the phone's page and changes nothing", async () => {
    const url = `/console/operator/devices/${spare.id}/settings`;
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ label: 'ok', send_rate_per_minute: 'ten', daily_send_limit: '300' }, 'settings-rate', /Enter a whole number/],
      [{ label: 'ok', send_rate_per_minute: '40', daily_send_limit: '300' }, 'settings-rate', /from 1 to 30/],
      [{ label: 'ok', send_rate_per_minute: '20', daily_send_limit: '0' }, 'settings-daily', /from 1 to 10,000/],
      [
        { label: 'y'.repeat(101), send_rate_per_minute: '20', daily_send_limit: '300' },
        'settings-label',
        /at most 100 characters/,
      ],
    ];
    for (const [fields, id, message] of cases) {
      const page = await postOperatorForm(t, url, operator, fields);
      assert.equal(page.statusCode, 400, `${JSON.stringify(fields)}: ${page.body.slice(0, 200)}`);
      assert.match(read(page).document.title, /^Error: Phone /);
      fieldError(page.body, id, message);
    }
    const view = (await inventory()).find((device) => device.id === spare.id);
    assert.deepEqual([view?.label, view?.send_rate_per_minute, view?.daily_send_limit], ['Spare', 20, 300]);
  });

  it('does not remove a phone carrying a cell, and says why', async () => {
    const confirm = await getOperatorPage(t, `/console/operator/devices/${line.device.id}/remove`, operator);
    read(confirm).getByText(/It carries a cell: the cell must be released first\./);
    const refused = await postOperatorForm(t, `/console/operator/devices/${line.device.id}/remove`, operator);
    assert.equal(refused.statusCode, 409);
    assert.match(textOf(read(refused).getByRole('alert')), /^The device carries a cell/);
    assert.ok((await inventory()).some((device) => device.id === line.device.id));
  });

  it('answers 404 for an unknown or malformed phone', async () => {
    for (const id of [UNKNOWN, 'not-an-id!']) {
      const base = `/console/operator/devices/${encodeURIComponent(id)}`;
      assert.equal((await getOperatorPage(t, `${base}/remove`, operator)).statusCode, 404, id);
      assert.equal((await postOperatorForm(t, `${base}/remove`, operator)).statusCode, 404, id);
      const settings = { label: 'x', send_rate_per_minute: '10', daily_send_limit: '100' };
      assert.equal((await postOperatorForm(t, `${base}/settings`, operator, settings)).statusCode, 404, id);
    }
  });

  it('refuses every form without the CSRF token or with a wrong one, and when signed out', async () => {
    const before = await inventory();
    const forms: [string, Record<string, string>][] = [
      ['/console/operator/devices', { phone_number: uniquePhoneNumber() }],
      [`/console/operator/devices/${spare.id}/settings`, { label: 'Taken', send_rate_per_minute: '5' }],
      [`/console/operator/devices/${spare.id}/remove`, {}],
    ];
    for (const [url, fields] of forms) {
      assert.equal((await postForm(t, url, fields, operator.headers)).statusCode, 403, `${url} without a token`);
      const wrong = { ...fields, csrf_token: `${operator.csrf.slice(1)}x` };
      assert.equal((await postForm(t, url, wrong, operator.headers)).statusCode, 403, `${url} with a wrong token`);
      const signedOut = await postForm(t, url, { ...fields, csrf_token: operator.csrf });
      assert.notEqual(signedOut.statusCode, 303, `${url} signed out`);
    }
    assert.deepEqual(await inventory(), before, 'nothing changed');
    const page = await t.app.inject({ url: '/console/operator/devices/new' });
    assert.equal(page.statusCode, 303);
    assert.match(String(page.headers.location), /^\/console\/operator\/sign-in\?next=/);
  });
});
