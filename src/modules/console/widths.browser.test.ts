// Every console page (and the card checkout, the landing and an error page) at a laptop's 1280 px and a phone's 390 px in Chromium: nothing scrolls
// sideways, the top menu stays on one line at 1280 px, and no word in a table is broken across
// lines at 1280 px (an event type such as message.delivered stays whole). With CELLGATE_TEST_SCREENSHOTS=1, screenshots go to
// test-artifacts/console-widths/. Skipped only where no Chromium exists.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestApp } from '../../../test/harness.ts';
import { screenshot, launchChromium, listeningApp, skipWithoutChromium } from '../../../test/support/browser.ts';
import { inbound } from '../../../test/support/messages.ts';
import { createPod } from '../../../test/support/pods.ts';
import { startReceiver, type Receiver } from '../../../test/support/webhook-receiver.ts';
import { failedDelivery, usageOnDays } from '../../../test/support/console-account.ts';
import { consoleLine, threadUrl, type ConsoleLine } from '../../../test/support/console-conversations.ts';

const PARTICIPANT = '+14155550177';
const WIDTHS = [1280, 390] as const;

/**
 * What the page's layout does at its width, measured in the page (a script in a string: this
 * project compiles without the DOM's types).
 */
const MEASURE = `(() => {
  const overflow = document.documentElement.scrollWidth - window.innerWidth;
  const links = [...document.querySelectorAll('.bar nav a')];
  // The bar's pieces (brand, menu items, who is signed in) all on one line: one vertical centre.
  const barItems = [...document.querySelectorAll('.brand, .bar nav a, .who')];
  const menuLines = new Set(barItems.map((a) => Math.round(a.getBoundingClientRect().top + a.offsetHeight / 2))).size;
  const wrappedLinks = [...links, ...document.querySelectorAll('.brand, .who button')]
    .filter((a) => a.getClientRects().length > 1 || a.offsetHeight > 1.5 * parseFloat(getComputedStyle(a).lineHeight))
    .map((a) => a.textContent);
  // A word laid out on more than one line has client rects at more than one height.
  const brokenWords = [];
  for (const cell of document.querySelectorAll('td, th')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of (node.textContent ?? '').matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (tops.size > 1) brokenWords.push(match[0]);
      }
    }
  }
  return { overflow, menuLines, wrappedLinks, brokenWords };
})()`;

const measure = (page: Page) =>
  page.evaluate(MEASURE) as Promise<{
    overflow: number;
    menuLines: number;
    wrappedLinks: string[];
    brokenWords: string[];
  }>;

describe('console pages at 1280 and 390 px', { skip: skipWithoutChromium }, () => {
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
    context = await browser.newContext();
    const session = line.signIn.cookie.split('=');
    await context.addCookies([{ name: session[0], value: session[1], url: `${base}/console` }]);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.stop();
  });

  const pages = () => [
    ['cells', '/console/cells'],
    ['cell', `/console/cells/${line.cell.id}`],
    ['thread', threadUrl(line.cell.id, PARTICIPANT)],
    ['messages', '/console/messages?text=shop'],
    ['codes', '/console/codes'],
    ['pods', '/console/pods'],
    ['pod', `/console/pods/${podId}`],
    ['webhooks', '/console/webhooks'],
    ['keys', '/console/keys'],
    ['billing', '/console/billing'],
    ['grants', '/console/grants'],
    ['sign-in', '/console/sign-in'],
    ['new-cell', '/console/cells/new'],
    ['rename', `/console/cells/${line.cell.id}/rename`],
    ['release', `/console/cells/${line.cell.id}/release`],
    ['checkout', checkout],
    ['landing', '/'],
    ['payment-required', '/docs/errors/payment_required'],
  ];

  for (const width of WIDTHS) {
    const title =
      width === 1280
        ? 'fits every page in 1280 px with the top bar on one line and no word broken in a table'
        : `fits every page in ${width} px without scrolling sideways`;
    it(title, async () => {
      const page = await context.newPage();
      await page.setViewportSize({ width, height: 900 });
      const problems: string[] = [];
      // No load of any page fails (its stylesheet, script, favicon).
      page.on('response', (response) => {
        if (response.status() >= 400) problems.push(`${response.url()}: HTTP ${response.status()}`);
      });
      for (const [name, path] of pages()) {
        const response = await page.goto(`${base}${path}`);
        assert.equal(response?.status(), 200, path);
        await page.waitForLoadState('load');
        await screenshot(page, 'console-widths', `${name}-${width}`);
        const found = await measure(page);
        if (found.overflow > 0) problems.push(`${path}: ${found.overflow} px wider than the window`);
        if (width === 1280) {
          if (found.menuLines > 1) problems.push(`${path}: the top bar takes ${found.menuLines} lines`);
          if (found.wrappedLinks.length) problems.push(`${path}: bar items wrap: ${found.wrappedLinks.join(', ')}`);
          if (found.brokenWords.length)
            problems.push(`${path}: words broken in a table: ${found.brokenWords.join(', ')}`);
        }
      }
      await page.close();
      assert.deepEqual(problems, []);
    });
  }
});
