// The operator console's "Add a phone" for the SMSGate app: an enrollment made from the page (the
// API's create_device_enrollment), its server URL, private token, code and QR code shown once with
// the Termux command beside them, then revoked from its page.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import QRCode from 'qrcode';
import { admin, useApp } from '../../../../test/harness.ts';
import { setCookies } from '../../../../test/support/console.ts';
import {
  getOperatorPage,
  postOperatorForm,
  signInOperator,
  type OperatorSignIn,
} from '../../../../test/support/console-operator.ts';
import { page as read, textOf } from '../../../../test/support/page.ts';
import { qrText } from './enroll-pages.ts';

describe('operator console: enrolling a phone for the SMSGate app', () => {
  const t = useApp();
  let operator: OperatorSignIn;
  let location: string;
  let flash: string;

  before(async () => {
    operator = await signInOperator(t);
  });

  const pending = async () => {
    const response = await t.app.inject({ url: '/v1/admin/devices/enrollments', headers: admin });
    assert.equal(response.statusCode, 200, response.body);
    return (response.json().enrollments as { id: string }[]).map((e) => e.id);
  };

  it('offers the app first on "Add a phone", the Termux form below it', async () => {
    const page = await getOperatorPage(t, '/console/operator/devices/new', operator);
    assert.equal(page.statusCode, 200);
    const headings = read(page)
      .getAllByRole('heading', { level: 2 })
      .map((heading) => heading.textContent);
    assert.deepEqual(headings, ['With the SMSGate app (recommended)', 'With Termux, by its number']);
    const enroll = read(page).getByRole<HTMLButtonElement>('button', { name: 'Enroll a phone' });
    assert.deepEqual(
      [enroll.form?.method, enroll.form?.getAttribute('action')],
      ['post', '/console/operator/devices/enrollments'],
    );
  });

  it('makes an enrollment and shows its URL, token, code and QR code once, on its page', async () => {
    const made = await postOperatorForm(t, '/console/operator/devices/enrollments', operator);
    assert.equal(made.statusCode, 303, made.body);
    location = String(made.headers.location);
    assert.match(location, /^\/console\/operator\/devices\/enrollments\/enr_\w+$/);
    const id = location.split('/').at(-1) as string;
    assert.deepEqual(await pending(), [id]);
    const cookie = setCookies(made).find((c) => c.startsWith('cg_operator_enrollment='));
    assert.ok(cookie, 'the secrets ride a flash cookie');
    assert.match(cookie, new RegExp(`Path=${location};`));
    flash = cookie.split(';')[0];

    const page = await t.app.inject({ url: location, headers: { cookie: `${operator.cookie}; ${flash}` } });
    assert.equal(page.statusCode, 200);
    assert.ok(
      setCookies(page).some((c) => c.startsWith('cg_operator_enrollment=;') && c.includes('Max-Age=0')),
      'the page clears the flash cookie',
    );
    const enrollment = read(page);
    const token = enrollment.valueOf('Private token (Settings → Cloud server → Private token)');
    assert.match(token, /^cg_enr_[A-Za-z0-9]{32}$/, 'the private token is shown');
    assert.equal(enrollment.valueOf('Server URL'), 'http://cellgate.test/mobile/v1');
    assert.match(enrollment.definition('Code (Sign in → By code)'), /^\d{6} \(valid until/);
    // The QR code is the app's settings format of the URL and token, as an inline SVG.
    const svg = await QRCode.toString(qrText('http://cellgate.test/mobile/v1', token), {
      type: 'svg',
      errorCorrectionLevel: 'M',
      margin: 2,
    });
    const modules = /<path stroke="#000000" d="([^"]+)"/.exec(svg)?.[1];
    assert.ok(modules && page.body.includes(modules), 'the page carries the QR code of the URL and token');
    const qr = enrollment.getByRole('img', { name: /^QR code of the server URL and the private token/ });
    assert.ok(qr.querySelector('svg'), 'drawn inline');
    // The service here is plain HTTP: the page says the app needs https://.
    assert.match(textOf(enrollment.getByRole('alert')), /accepts only an https:\/\/ server URL/);
    // The Termux command beside it, for the same service.
    enrollment.getByText(
      'curl -fsSLO http://cellgate.test/v1/device/agent.mjs && node agent.mjs run --key cg_dev_... --base-url http://cellgate.test',
    );
  });

  it('shows the secrets only once: a reload offers to revoke', async () => {
    const again = await getOperatorPage(t, location, operator);
    assert.equal(again.statusCode, 200);
    assert.doesNotMatch(again.body, /cg_enr_/);
    read(again).getByText(/were shown once/);
    const revoked = await postOperatorForm(t, `${location}/revoke`, operator);
    assert.equal(revoked.statusCode, 303, revoked.body);
    assert.equal(revoked.headers.location, '/console/operator/fleet?notice=enrollment_revoked');
    assert.deepEqual(await pending(), []);
    const fleet = await getOperatorPage(t, String(revoked.headers.location), operator);
    read(fleet).getByText(/Revoked: its token and code no longer work\./);
  });

  it('answers 404 for an enrollment that is not pending', async () => {
    const gone = await postOperatorForm(t, `${location}/revoke`, operator);
    assert.equal(gone.statusCode, 404);
    read(gone).getByRole('heading', { level: 1, name: /Enrollment not found/ });
    const bad = await getOperatorPage(t, '/console/operator/devices/enrollments/not-an-id', operator);
    assert.equal(bad.statusCode, 404);
  });
});
