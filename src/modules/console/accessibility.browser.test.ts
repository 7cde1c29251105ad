// Every console page through axe-core's WCAG 2.1 A/AA checks in Chromium (and the API reference's
// landing and error pages): an organization with a cell, a conversation, a webhook whose delivery
// failed, a key and a month of usage, so each page shows its tables, forms and chart. Skipped only
// where no Chromium exists.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { BrowserContext } from 'playwright-core';
import { accessibilityViolations, skipWithoutChromium } from '../../../test/support/browser.ts';
import { consoleWithEveryPage, type ConsoleWithEveryPage } from '../../../test/support/console-pages.ts';

describe('console pages meet WCAG 2.1 AA (axe-core)', { skip: skipWithoutChromium }, () => {
  let fixture: ConsoleWithEveryPage;
  let context: BrowserContext;
  let base: string;
  let podPath: string;

  before(async () => {
    fixture = await consoleWithEveryPage();
    base = fixture.base;
    podPath = fixture.pages.find(([name]) => name === 'pod')?.[1] as string;
    // axe is injected as a script, which the console's Content-Security-Policy would refuse.
    context = await fixture.signedIn({ bypassCSP: true });
  });

  after(() => fixture?.close());

  const pages = () => fixture.pages.map(([, path]) => path);

  // Twenty pages: room for a loaded machine (the runner's default is 60 s).
  it('has no violations on any page, signed in', { timeout: 180_000 }, async () => {
    const found: string[] = [];
    const page = await context.newPage();
    for (const path of pages()) {
      const response = await page.goto(`${base}${path}`);
      assert.equal(response?.status(), 200, path);
      for (const violation of await accessibilityViolations(page)) {
        found.push(
          `${path}: ${violation.id} (${violation.impact}) ${violation.help}: ${violation.nodes.slice(0, 3).join(' | ')}`,
        );
      }
    }
    assert.deepEqual(found, []);
  });

  it('has no violations on the error states of the search and the pod forms', async () => {
    const page = await context.newPage();
    const response = await page.goto(`${base}/console/messages?participant=x&from=2026-02-31&status=lost`);
    assert.equal(response?.status(), 400);
    const found = (await accessibilityViolations(page)).map((v) => `search: ${v.id} ${v.help}`);
    await page.goto(`${base}${podPath}`);
    await page.getByLabel('Start').fill('21:00');
    await page.getByLabel('End', { exact: true }).fill('08:00');
    await page.getByLabel('Time zone').fill('Nowhere/Land');
    await page.getByRole('button', { name: 'Save quiet hours' }).click();
    await page.getByText('Enter a time zone by its IANA name').waitFor();
    found.push(...(await accessibilityViolations(page)).map((v) => `pod: ${v.id} ${v.help}`));
    await page.close();
    assert.deepEqual(found, []);
  });

  it('has no violations on the sign-in page and its error state', async () => {
    const page = await fixture.browser.newPage({ bypassCSP: true });
    await page.goto(`${base}/console/sign-in`);
    assert.deepEqual(await accessibilityViolations(page), []);
    await page.getByLabel('Email address').fill('not an email');
    await page.getByRole('button', { name: 'Email me a code' }).click();
    await page.getByText('Enter an email address').waitFor();
    assert.deepEqual(await accessibilityViolations(page), []);
  });
});
