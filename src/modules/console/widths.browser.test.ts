// Every console page (and the card checkout, the landing and an error page) at a laptop's 1280 px and a phone's 390 px in Chromium: nothing scrolls
// sideways, the top menu stays on one line at 1280 px (below the brand and the organization's
// name), and no word in a table is broken across
// lines at 1280 px (an event type such as message.delivered stays whole). With CELLGATE_TEST_SCREENSHOTS=1, screenshots go to
// test-artifacts/console-widths/. Skipped only where no Chromium exists.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { screenshot, skipWithoutChromium } from '../../../test/support/browser.ts';
import { consoleWithEveryPage, type ConsoleWithEveryPage } from '../../../test/support/console-pages.ts';

const WIDTHS = [1280, 390] as const;

/**
 * What the page's layout does at its width, measured in the page (a script in a string: this
 * project compiles without the DOM's types).
 */
const MEASURE = `(() => {
  const overflow = document.documentElement.scrollWidth - window.innerWidth;
  const links = [...document.querySelectorAll('.bar nav a')];
  // The menu's items all on one line: one vertical centre.
  const menuLines = new Set(links.map((a) => Math.round(a.getBoundingClientRect().top + a.offsetHeight / 2))).size;
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
  let fixture: ConsoleWithEveryPage;
  let context: BrowserContext;

  before(async () => {
    fixture = await consoleWithEveryPage();
    context = await fixture.signedIn();
  });

  after(() => fixture?.close());

  const pages = () => [...fixture.pages, ['sign-in', '/console/sign-in']];

  for (const width of WIDTHS) {
    const title =
      width === 1280
        ? 'fits every page in 1280 px with the menu on one line and no word broken in a table'
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
        const response = await page.goto(`${fixture.base}${path}`);
        assert.equal(response?.status(), 200, path);
        await page.waitForLoadState('load');
        await screenshot(page, 'console-widths', `${name}-${width}`);
        const found = await measure(page);
        if (found.overflow > 0) problems.push(`${path}: ${found.overflow} px wider than the window`);
        if (width === 1280) {
          if (found.menuLines > 1) problems.push(`${path}: the menu takes ${found.menuLines} lines`);
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
