// Every console page through axe-core's WCAG 2.1 A/AA checks in Chromium (and the API reference's
// landing and error pages): an organization with a cell, a conversation, a webhook whose delivery
// failed, a key and a month of usage, so each page shows its tables, forms and chart. Skipped only
// where no Chromium exists.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext } from 'playwright-core';
import type { TestApp } from '../../../test/harness.ts';
import {
  accessibilityViolations,
  launchChromium,
  listeningApp,
  skipWithoutChromium,
} from '../../../test/support/browser.ts';
import { inbound } from '../../../test/support/messages.ts';
import { createPod } from '../../../test/support/pods.ts';
import { startReceiver, type Receiver } from '../../../test/support/webhook-receiver.ts';
import { failedDelivery, usageOnDays } from '../../../test/support/console-account.ts';
import { consoleLine, threadUrl, type ConsoleLine } from '../../../test/support/console-conversations.ts';

const PARTICIPANT = '+14155550177';

describe('console pages meet WCAG 2.1 AA (axe-core)', { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let receiver: Receiver;
  let line: ConsoleLine;
  let checkout: string;
  let podId: string;

  before(async () => {
    receiver = await startReceiver();
    ({ t, base } = await listeningApp());
    line = await consoleLine(t);
    assert.equal((await inbound(t, line, { from: PARTICIPANT, body: 'Is the shop open on Sunday?' })).statusCode, 201);
    await failedDelivery(t, line.org, receiver);
    await usageOnDays(t, line.org.organizationId, [1, 2]);
    const started = await t.app.inject({
      method: 'POST',
      url: '/v1/billing/checkout',
      headers: line.org.headers,
      payload: { intent: 'top_up', amount_usd: '25' },
    });
    assert.equal(started.statusCode, 201, started.body);
    const url = new URL(started.json().checkout_url as string);
    checkout = `${url.pathname}${url.search}`;
    podId = (await createPod(t, line.org, [line.cell.id])).id;
    browser = await launchChromium();
    // axe is injected as a script, which the console's Content-Security-Policy would refuse.
    context = await browser.newContext({ bypassCSP: true });
    const session = line.signIn.cookie.split('=');
    await context.addCookies([{ name: session[0], value: session[1], url: `${base}/console` }]);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.stop();
  });

  const pages = () => [
    '/console/cells',
    `/console/cells/${line.cell.id}`,
    threadUrl(line.cell.id, PARTICIPANT),
    '/console/messages?text=shop',
    '/console/codes',
    '/console/pods',
    `/console/pods/${podId}`,
    '/console/webhooks',
    '/console/keys',
    '/console/billing',
    '/console/grants',
    '/console/cells/new',
    `/console/cells/${line.cell.id}/rename`,
    `/console/cells/${line.cell.id}/release`,
    '/',
    '/docs/errors',
    '/docs/errors/payment_required',
    checkout,
  ];

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
    await page.goto(`${base}/console/pods/${podId}`);
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
    const page = await browser.newPage({ bypassCSP: true });
    await page.goto(`${base}/console/sign-in`);
    assert.deepEqual(await accessibilityViolations(page), []);
    await page.getByLabel('Email address').fill('not an email');
    await page.getByRole('button', { name: 'Email me a code' }).click();
    await page.getByText('Enter an email address').waitFor();
    assert.deepEqual(await accessibilityViolations(page), []);
  });
});
