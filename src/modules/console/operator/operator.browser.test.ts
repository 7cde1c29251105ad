// The operator console in a real browser (playwright-core driving Debian's Chromium): an operator
// signs in with the admin token, sees a rack of simulated phones (the device simulator
// long-polling over HTTP), watches a row change live, rotates a key, pauses a phone and finds both
// in the audit; then every operator page through axe-core's WCAG 2.1 A/AA checks, with a form error
// shown. With CELLGATE_TEST_SCREENSHOTS=1, screenshots go to test-artifacts/operator/. Skipped only where no Chromium exists.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { ADMIN_TOKEN, activeOrganization, type TestApp } from '../../../../test/harness.ts';
import {
  accessibilityViolations,
  screenshot,
  launchChromium,
  listeningApp,
  skipWithoutChromium,
} from '../../../../test/support/browser.ts';
import { addDevice, type TestDevice } from '../../../../test/support/devices.ts';
import { activeLine, type Line } from '../../../../test/support/messages.ts';
import { mobilePhone, twoSims } from '../../../../test/support/mobile.ts';
import { startSimulatedDevice, type SimulatedDevice } from '../../../cli/device-simulator.ts';

const RACK = 3;

describe('operator console in a browser', { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let lines: Line[];
  let spare: TestDevice;
  const simulated: SimulatedDevice[] = [];

  before(async () => {
    ({ t, base } = await listeningApp());
    const org = await activeOrganization(t);
    lines = [];
    for (let slot = 1; slot <= RACK; slot++) lines.push(await activeLine(t, { label: `Rack A, slot ${slot}` }, org));
    for (const line of lines)
      simulated.push(
        await startSimulatedDevice({
          baseUrl: base,
          key: line.device.key,
          deliveryDelayMs: 0,
          pollWaitSeconds: 1,
          logger: () => {},
          now: () => t.clock.now(),
        }),
      );
    spare = await addDevice(t, { label: 'Spare on the shelf' });
    browser = await launchChromium();
  });

  after(async () => {
    await Promise.all(simulated.map((device) => device.stop()));
    await browser?.close();
    await t?.close();
  });

  const shot = (page: Page, name: string) => screenshot(page, 'operator', name);
  const nav = (page: Page, name: string) =>
    page.getByRole('navigation', { name: 'Operator console' }).getByRole('link', { name });
  const heartbeat = (device: TestDevice, payload: Record<string, unknown>) =>
    fetch(`${base}/v1/device/heartbeat`, {
      method: 'POST',
      headers: { ...device.headers, 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    });

  async function signIn(page: Page): Promise<void> {
    await page.goto(`${base}/console/operator/fleet`);
    await page.waitForURL((url) => url.pathname === '/console/operator/sign-in');
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/console/operator/fleet');
  }

  it('signs in with the admin token, sees the rack live, rotates a key, pauses a phone and finds both in the audit', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await signIn(page);
    const rows = page.locator('#fleet tr');
    assert.equal(await rows.count(), RACK + 1);
    for (const line of lines) {
      const row = page.locator(`#device-${line.device.id}`);
      assert.match(String(await row.textContent()), /Online/);
      assert.match(String(await row.textContent()), /100%/, 'the simulator reports its battery');
    }
    assert.match(String(await page.locator(`#device-${spare.id}`).textContent()), /Never connected/);
    await page.getByText('Live: rows update as phones report.').waitFor();
    await shot(page, 'fleet');

    // The spare phone calls in with a low battery: its row changes without a reload.
    assert.equal((await heartbeat(spare, { battery_pct: 9, charging: false, signal_dbm: -101 })).status, 200);
    await t.services.operatorConsole.live?.tick();
    await page.locator(`#device-${spare.id}`).getByText('9%').waitFor();
    assert.match(String(await page.locator(`#device-${spare.id}`).textContent()), /Online.*9%.*-101 dBm/s);

    // The spare's page: rotate its key with a reason; the key is shown once.
    await page.getByRole('link', { name: spare.phoneNumber }).click();
    await page.waitForURL((url) => url.pathname === `/console/operator/devices/${spare.id}`);
    await page.getByLabel('Reason (optional)').fill('Moved to rack B');
    await page.getByRole('button', { name: 'Rotate device key' }).click();
    const key = await page.getByLabel('Device key for X-Phone-Key').inputValue();
    assert.match(key, /^cg_dev_[A-Za-z0-9]{32}$/);
    assert.equal((await heartbeat({ ...spare, headers: { 'x-phone-key': key } }, {})).status, 200);
    await shot(page, 'device-rotated');

    // Pause the phone in slot 2: it stays online but claims nothing; the fleet says so.
    const slot2 = lines[1];
    await nav(page, 'Fleet').click();
    await page.getByRole('link', { name: slot2.device.phoneNumber }).click();
    await page.waitForURL((url) => url.pathname === `/console/operator/devices/${slot2.device.id}`);
    await page.getByLabel('Reason', { exact: true }).fill('SIM swap at 22:00');
    await page.getByRole('button', { name: 'Pause phone' }).click();
    await page.getByText('Paused: the phone claims nothing until resumed.').waitFor();
    await page.getByRole('button', { name: 'Resume phone' }).waitFor();
    await nav(page, 'Fleet').click();
    assert.match(String(await page.locator(`#device-${slot2.device.id}`).textContent()), /Paused.*SIM swap at 22:00/s);
    const held = await fetch(`${base}/v1/admin/devices/${slot2.device.id}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(((await held.json()) as { paused: boolean }).paused, true);

    // The audit names who did each, what, to which phone, and why; newest first.
    await nav(page, 'Audit').click();
    await page.waitForURL((url) => url.pathname === '/console/operator/audit');
    const [paused, rotated] = (
      await page.getByRole('table', { name: 'Operator actions, newest first' }).locator('tbody tr').allTextContents()
    ).map(String);
    assert.match(paused, /CELLGATE_ADMIN_TOKEN/);
    assert.match(paused, /device\.pause/);
    assert.match(paused, new RegExp(slot2.device.id));
    assert.match(paused, /SIM swap at 22:00/);
    assert.match(rotated, /device\.rotate_key/);
    assert.match(rotated, new RegExp(spare.id));
    assert.match(rotated, /Moved to rack B/);
    await shot(page, 'audit');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.pathname === '/console/operator/sign-in');
    await page.close();
  });

  it('fits every operator page in 1280 and 390 px without the page scrolling sideways', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page);
    const problems: string[] = [];
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      for (const path of [
        '/console/operator/fleet',
        `/console/operator/devices/${lines[0].device.id}`,
        '/console/operator/organizations',
        `/console/operator/organizations/${lines[0].org.organizationId}`,
        '/console/operator/deposits',
        '/console/operator/audit',
        '/console/operator/devices/new',
        '/console/operator/webhooks',
      ]) {
        assert.equal((await page.goto(`${base}${path}`))?.status(), 200, path);
        const overflow = (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number;
        if (overflow > 0) problems.push(`${path} at ${width} px: ${overflow} px wider than the window`);
      }
      await page.goto(`${base}/console/operator/fleet`);
      await shot(page, `fleet-${width}`);
    }
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('has no axe-core violations on any operator page, including a form error', async () => {
    // A day of telemetry for the chart.
    for (let hour = 0; hour < 6; hour++) {
      t.clock.advance(60 * 60_000);
      await heartbeat(spare, { battery_pct: 60 - hour * 5, charging: false, signal_dbm: -80 - hour });
    }
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const found: string[] = [];
    const check = async (label: string) => {
      for (const v of await accessibilityViolations(page))
        found.push(`${label}: ${v.id} (${v.impact}) ${v.help}: ${v.nodes.slice(0, 3).join(' | ')}`);
    };
    await page.goto(`${base}/console/operator/sign-in`);
    await check('sign-in');
    await page.getByLabel('Admin token').fill('cg_adm_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That admin token is not valid').waitFor();
    await check('sign-in error');
    await signIn(page);
    const organizationId = lines[0].org.organizationId;
    for (const path of [
      '/console/operator/fleet',
      '/console/operator/fleet?filter=offline',
      `/console/operator/devices/${spare.id}`,
      `/console/operator/devices/${lines[0].device.id}`,
      '/console/operator/organizations',
      `/console/operator/organizations/${organizationId}`,
      '/console/operator/deposits',
      '/console/operator/audit',
      '/console/operator/devices/new',
      `/console/operator/devices/${spare.id}/remove`,
      '/console/operator/webhooks',
    ]) {
      const response = await page.goto(`${base}${path}`);
      assert.equal(response?.status(), 200, path);
      await check(path);
    }
    // A credit with a negative amount and no reason: the errors are on their fields.
    await page.goto(`${base}/console/operator/organizations/${organizationId}`);
    await page.getByLabel('Amount in US dollars').fill('-5');
    await page.getByRole('button', { name: 'Credit', exact: true }).click();
    await page.getByText('Enter a reason: it is kept with the action.').waitFor();
    await check('organization form error');
    await shot(page, 'organization-form-error');
    // A phone with a bad number and rate: the errors are on their fields.
    await page.goto(`${base}/console/operator/devices/new`);
    await page.getByLabel('Phone number').fill('12345');
    await page.getByLabel('Send rate (SMS segments per minute)').fill('fast');
    await page.getByRole('button', { name: 'Add phone' }).click();
    await page.getByText('Enter a whole number from 1 to 30.').waitFor();
    await check('add a phone form error');
    // An SMSGate enrollment: its token, code and QR code shown once, fitting a phone's width.
    await page.goto(`${base}/console/operator/devices/new`);
    await page.getByRole('button', { name: 'Enroll a phone' }).click();
    await page.getByRole('img', { name: /QR code of the server URL and the private token/ }).waitFor();
    await check('enrollment');
    await shot(page, 'enrollment');
    await page.setViewportSize({ width: 390, height: 900 });
    assert.equal(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'), 0, 'fits 390 px');
    await page.setViewportSize({ width: 1400, height: 900 });
    // An SMSGate phone signed in with masked SIM numbers: its SIM lines, and a number refused on its field.
    const smsgate = await mobilePhone(t, twoSims('********0123', '********0124'));
    await page.goto(`${base}/console/operator/devices/${smsgate.id}`);
    await page.getByRole('heading', { name: 'SIM lines' }).waitFor();
    await check('SIM lines');
    await page.getByLabel('SIM 2 number').fill('0124');
    await page.getByRole('button', { name: 'Save SIM numbers' }).click();
    await page.getByText(/international E\.164 form/).waitFor();
    await check('SIM number error');
    await shot(page, 'sim-lines-error');
    // An endpoint added (its secret shown once), then its own page.
    await page.goto(`${base}/console/operator/webhooks`);
    await page.getByLabel('URL').fill('https://ops.example.com/hooks');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByText('Endpoint added: its signing secret').waitFor();
    await check('webhook added');
    await page.getByRole('link', { name: 'https://ops.example.com/hooks' }).click();
    await page.getByRole('heading', { name: 'Deliveries' }).waitFor();
    await check('webhook page');
    assert.deepEqual(found, []);
    await context.close();
  });
});
