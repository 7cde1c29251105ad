// What a person sees of the console's layout in Chromium (issue 37 §3): the organization's whole
// name in the bar at 1280 and 390 px, a label on every value of a table stacked on a phone, the pod
// page in two columns rather than one long one at 1280 px, and the Copy button of a secret shown
// once (the secret still selectable without JavaScript). With CELLGATE_TEST_SCREENSHOTS=1,
// screenshots go to test-artifacts/console-layout/. Skipped only where no Chromium exists.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { BrowserContext } from 'playwright-core';
import { uniqueEmail } from '../../../test/harness.ts';
import { screenshot, skipWithoutChromium, unlabelledValues } from '../../../test/support/browser.ts';
import { signInConsole } from '../../../test/support/console.ts';
import { consoleWithEveryPage, type ConsoleWithEveryPage } from '../../../test/support/console-pages.ts';

/** 100 characters, the longest name sign-up takes. */
const LONG_NAME = 'Northwind Community Health Cooperative of Greater Springfield and the Three Rivers Valley Clinics';

describe('console layout in a browser', { skip: skipWithoutChromium }, () => {
  let fixture: ConsoleWithEveryPage;
  let context: BrowserContext;

  before(async () => {
    fixture = await consoleWithEveryPage();
    context = await fixture.signedIn();
  });

  after(() => fixture?.close());

  /** A browser context signed in to a new organization with the longest name. */
  async function longNamedOrganization(): Promise<BrowserContext> {
    const { t, base } = fixture;
    const email = uniqueEmail();
    const signedUp = await t.app.inject({
      method: 'POST',
      url: '/v1/agent/sign-up',
      payload: { email, organization_name: LONG_NAME },
    });
    assert.equal(signedUp.statusCode, 201, signedUp.body);
    const verified = await t.app.inject({
      method: 'POST',
      url: '/v1/agent/verify',
      headers: { authorization: `Bearer ${signedUp.json().api_key}` },
      payload: { code: t.mail.codeFor(email) },
    });
    assert.equal(verified.statusCode, 200, verified.body);
    const [name, value] = (await signInConsole(t, email)).cookie.split('=');
    const signedIn = await fixture.browser.newContext();
    await signedIn.addCookies([{ name, value, url: `${base}/console` }]);
    return signedIn;
  }

  it("shows the organization's whole name in the bar at 1280 and 390 px, the menu on one line at 1280 px", async () => {
    const signedIn = await longNamedOrganization();
    const page = await signedIn.newPage();
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${fixture.base}/console/cells`);
      await screenshot(page, 'console-layout', `long-name-${width}`, false);
      const who = page.locator('.who span');
      assert.equal((await who.textContent())?.replace(/\s+/g, ' '), `Signed in to ${LONG_NAME}`);
      // Nothing of it is cut: no overflow, inside the window.
      const shown = (await page.evaluate(`(() => {
        const span = document.querySelector('.who span');
        return { cut: span.scrollWidth > span.clientWidth, right: span.getBoundingClientRect().right, window: innerWidth };
      })()`)) as { cut: boolean; right: number; window: number };
      assert.equal(shown.cut, false, `the name is cut at ${width} px`);
      assert.ok(shown.right <= shown.window, `the name ends outside the window at ${width} px`);
      if (width === 1280) {
        const tops = await page.evaluate(
          `new Set([...document.querySelectorAll('.bar nav a')].map((a) => Math.round(a.getBoundingClientRect().top))).size`,
        );
        assert.equal(tops, 1, 'the menu on one line');
      }
    }
    await signedIn.close();
  });

  it('labels every value of a table stacked at 390 px with its column', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 390, height: 900 });
    const problems: string[] = [];
    let tables = 0;
    for (const [, path] of fixture.pages.filter(([, path]) => path.startsWith('/console/'))) {
      await page.goto(`${fixture.base}${path}`);
      tables += await page.locator('table:visible').count();
      for (const problem of await unlabelledValues(page)) problems.push(`${path}: ${problem}`);
    }
    assert.ok(tables >= 6, `the walk meets tables (${tables})`);
    assert.deepEqual(problems, []);
    // As read: the key's value follows its label.
    await page.goto(`${fixture.base}/console/keys`);
    assert.equal(
      await page.evaluate(`getComputedStyle(document.querySelector('td[data-label="Key"]'), '::before').content`),
      '"Key: "',
    );
    await screenshot(page, 'console-layout', 'keys-390');
    await page.close();
  });

  it("lays the pod page out in two columns at 1280 px, two thirds of one column's height, and one column on a phone", async () => {
    const page = await context.newPage();
    const podPath = fixture.pages.find(([name]) => name === 'pod')?.[1] ?? '';
    const measure = async (width: number) => {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${fixture.base}${podPath}`);
      await screenshot(page, 'console-layout', `pod-${width}`);
      return (await page.evaluate(`(() => ({
        height: document.documentElement.scrollHeight,
        columns: new Set([...document.querySelectorAll('.pod-sections > section')].map((s) => Math.round(s.getBoundingClientRect().left))).size,
      }))()`)) as { height: number; columns: number };
    };
    // Below 1024 px the sections are one column (3,062 px high at 1280 px before).
    const narrow = await measure(1000);
    assert.equal(narrow.columns, 1);
    const wide = await measure(1280);
    assert.equal(wide.columns, 2);
    assert.ok(
      wide.height <= 0.7 * narrow.height,
      `the pod page is ${wide.height} px high at 1280 px, ${narrow.height} px in one column`,
    );
    assert.equal((await measure(390)).columns, 1);
    await page.close();
  });

  it('copies a secret shown once with its Copy button, and shows it selectable without JavaScript', async () => {
    const copying = await fixture.signedIn();
    await copying.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: fixture.base });
    const page = await copying.newPage();
    await page.goto(`${fixture.base}/console/keys`);
    await page.getByLabel('Key name').fill('clipboard');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.getByLabel('Your new API key').inputValue();
    assert.match(secret, /^cg_/);
    await page.getByRole('button', { name: 'Copy Your new API key' }).click();
    await page.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), secret);
    await screenshot(page, 'console-layout', 'copied', false);
    await copying.close();

    // Without JavaScript: no button that would do nothing; the secret is in a read-only field.
    const plain = await fixture.browser.newContext({ javaScriptEnabled: false });
    await plain.addCookies(await context.cookies());
    const without = await plain.newPage();
    await without.goto(`${fixture.base}/console/keys`);
    await without.getByLabel('Key name').fill('no-script');
    await without.getByRole('button', { name: 'Create key' }).click();
    const field = without.getByLabel('Your new API key');
    assert.match(await field.inputValue(), /^cg_/);
    assert.equal(await field.getAttribute('readonly'), '');
    assert.equal(await without.getByRole('button', { name: /^Copy/ }).count(), 0);
    await plain.close();
  });
});
