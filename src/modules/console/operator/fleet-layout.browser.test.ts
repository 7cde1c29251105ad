// The operator console in Chromium (issue 37 §3): the fleet's count line follows a phone going
// offline without a reload; a phone that never connected says so, with no health or capabilities
// until it reports them; a rotated device key has its Copy button; the organizations table, stacked
// on a phone, labels each value. The clock is the test's: presence moves by advancing it, not by
// waiting. With CELLGATE_TEST_SCREENSHOTS=1, screenshots go to test-artifacts/operator-layout/.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext } from 'playwright-core';
import { activeOrganization, type TestApp } from '../../../../test/harness.ts';
import {
  launchChromium,
  listeningApp,
  screenshot,
  skipWithoutChromium,
  unlabelledValues,
} from '../../../../test/support/browser.ts';
import { signInOperator } from '../../../../test/support/console-operator.ts';
import { addDevice, type TestDevice } from '../../../../test/support/devices.ts';
import { OFFLINE_AFTER_MS } from '../../devices/service.ts';

describe('operator fleet in a browser', { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let rack: TestDevice[];
  let unboxed: TestDevice;

  const heartbeat = async (device: TestDevice) => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/device/heartbeat',
      headers: device.headers,
      payload: { battery_pct: 80, charging: true, signal_dbm: -70 },
    });
    assert.equal(response.statusCode, 200, response.body);
  };

  before(async () => {
    ({ t, base } = await listeningApp());
    await activeOrganization(t);
    rack = [await addDevice(t, { label: 'Rack A, slot 1' }), await addDevice(t, { label: 'Rack A, slot 2' })];
    for (const device of rack) await heartbeat(device);
    unboxed = await addDevice(t, { label: 'Just unboxed' });
    browser = await launchChromium();
    context = await browser.newContext();
    const [name, value] = (await signInOperator(t)).cookie.split('=');
    await context.addCookies([{ name, value, url: `${base}/console/operator` }]);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('updates the count line live when a phone goes offline, and says which phone never connected', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${base}/console/operator/fleet`);
    await page.getByText('Live: rows update as phones report.').waitFor();
    const summary = page.locator('#fleet-summary');
    assert.equal(await summary.textContent(), '3 phones in the rack, 2 online.');

    // The phone never connected: not Healthy, no capabilities, not "last seen never".
    const fresh = String(await page.locator(`#device-${unboxed.id}`).textContent());
    assert.match(fresh, /Never connected/);
    assert.doesNotMatch(fresh, /Healthy|Delivery reports|SMS|Last seen/);
    assert.equal(fresh.match(/Not reported yet/g)?.length, 2, 'health and capabilities');
    const reporting = String(await page.locator(`#device-${rack[0].id}`).textContent());
    assert.match(reporting, /Online.*Healthy.*Delivery reports/s);

    // Slot 2 goes silent: past the offline delay it is taken offline, and the page follows.
    t.clock.advance(OFFLINE_AFTER_MS + 60_000);
    await heartbeat(rack[0]);
    assert.equal(await t.services.devices.markSilentOffline(), 1);
    await t.services.operatorConsole.live?.tick();
    await page.locator(`#device-${rack[1].id}`).getByText('Offline').waitFor();
    await page.getByText('3 phones in the rack, 1 online.').waitFor();
    await screenshot(page, 'operator-layout', 'fleet-offline');

    // Its page says the same.
    await page.goto(`${base}/console/operator/devices/${unboxed.id}`);
    const facts = String(await page.locator('dl.facts').textContent());
    assert.match(facts, /Never connected/);
    assert.doesNotMatch(facts, /Healthy|Delivery reports/);
    await page.close();
  });

  it('copies a rotated device key with its Copy button', async () => {
    const copying = await browser.newContext();
    await copying.addCookies(await context.cookies());
    await copying.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const page = await copying.newPage();
    await page.goto(`${base}/console/operator/devices/${unboxed.id}`);
    await page.getByRole('button', { name: 'Rotate device key' }).click();
    const key = await page.getByLabel('Device key for X-Phone-Key').inputValue();
    assert.match(key, /^cg_dev_/);
    await page.getByRole('button', { name: 'Copy Device key for X-Phone-Key' }).click();
    await page.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), key);
    await copying.close();
  });

  it('labels every value of the operator tables stacked at 390 px', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 390, height: 900 });
    const problems: string[] = [];
    let tables = 0;
    for (const path of ['fleet', 'organizations', 'audit', `devices/${rack[0].id}`]) {
      await page.goto(`${base}/console/operator/${path}`);
      tables += await page.locator('table:visible').count();
      for (const problem of await unlabelledValues(page)) problems.push(`${path}: ${problem}`);
    }
    await screenshot(page, 'operator-layout', 'organizations-390');
    assert.ok(tables >= 4, `the walk meets tables (${tables})`);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
