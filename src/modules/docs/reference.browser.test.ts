// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
// The API reference at /docs in a real browser (playwright-core driving Debian's Chromium), offline:
// every request to another host is aborted and recorded, and the page must render all the same
// (Scalar's script from this service, no fonts or telemetry from Scalar's hosts) without breaking
// its Content-Security-Policy. With CELLGATE_TEST_SCREENSHOTS=1, screenshots go to test-artifacts/docs/ (git-ignored). Skipped only
// where no Chromium exists.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import type { TestApp } from '../../../test/harness.ts';
import { screenshot, launchChromium, listeningApp, skipWithoutChromium } from '../../../test/support/browser.ts';

describe('API reference in a browser, offline', { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let base: string;
  const elsewhere: string[] = [];
  const problems: string[] = [];

  before(async () => {
    // The document's server is the listening service, so the try-it client targets it.
    ({ t, base } = await listeningApp());
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.route('**/*', (route) => {
      if (new URL(route.request().url()).origin === base) return route.continue();
      elsewhere.push(route.request().url());
      return route.abort('internetdisconnected');
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      // Zod (inside Scalar) probes for eval with `Function('')` in a try/catch and, refused by the
      // policy as intended, validates without it: the one violation expected.
      if (message.type() === 'error' && message.text() !== 'CSP blocked eval (script-src)')
        problems.push(`console: ${message.text()}`);
    });
    // Init scripts run outside the page's CSP; they see every violation the policy reports.
    await page.addInitScript({
      content:
        "document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP blocked ${e.blockedURI} (${e.violatedDirective})`));",
    });
    await page.goto(`${base}/docs`);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('renders the document with its introduction sections, from this host only', async () => {
    await page.getByRole('heading', { name: 'Cellgate API', exact: true }).waitFor();
    assert.equal(await page.title(), 'Cellgate API reference');
    for (const section of ['Authentication', 'Idempotency', 'Pagination', 'Errors', 'Events and webhooks']) {
      assert.ok(await page.getByRole('heading', { name: section, exact: true }).first().isVisible(), section);
    }
    assert.ok(await page.getByRole('link', { name: 'error reference' }).isVisible());
    await screenshot(page, 'docs', 'reference', false);
    assert.deepEqual(elsewhere, [], 'no request to another host');
    assert.deepEqual(problems, []);
  });

  it('offers the try-it client for a send with an Idempotency-Key field', async () => {
    await page.goto(`${base}/docs#tag/messages/POST/v1/cells/{cell_id}/messages/send`);
    await page.getByRole('heading', { name: 'Send a message' }).first().waitFor();
    await page
      .getByRole('button', { name: /Test Request\s*\(post \/v1\/cells\/\{cell_id\}\/messages\/send\)/ })
      .click();
    const client = page.getByRole('dialog');
    await client.getByText('Idempotency-Key', { exact: true }).waitFor();
    assert.ok(await client.getByText('Bearer Token').isVisible(), 'the bearer credential can be entered');
    await screenshot(page, 'docs', 'reference-try-it', false);
    assert.deepEqual(elsewhere, [], 'no request to another host');
    assert.deepEqual(problems, []);
  });
});
