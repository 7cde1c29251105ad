// What the Chromium tests share: Debian's Chromium (or CELLGATE_CHROMIUM), a skip reason where
// there is none, a test app listening on the address it believes is its own (the console checks
// the Origin of form posts, and the reference's try-it client calls the document's server), and
// the git-ignored directory screenshots go to.
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { listeningTestApp, type StartOptions, type TestApp } from '../harness.ts';

// Debian's chromium-headless-shell first: the old headless shell, without the full browser's
// window and compositor machinery, does the same page work with about half the CPU.
const CHROMIUM = [
  process.env.CELLGATE_CHROMIUM,
  '/usr/lib/chromium/chromium-headless-shell',
  '/usr/lib/chromium/chromium',
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
].find((path): path is string => typeof path === 'string' && path !== '' && existsSync(path));

/** The `skip` option of a browser suite: false when Chromium is here, else why not. */
export const skipWithoutChromium: false | string = CHROMIUM
  ? false
  : 'no Chromium found (install the Debian package "chromium-headless-shell" or "chromium", or set CELLGATE_CHROMIUM to its binary)';

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });

/** test-artifacts/<name>/ (created), with a trailing slash. */
function artifactsDir(name: string): string {
  const dir = fileURLToPath(new URL(`../../test-artifacts/${name}/`, import.meta.url));
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * A screenshot of the page into test-artifacts/<dir>/<name>.png, when CELLGATE_TEST_SCREENSHOTS
 * is 1. Encoding full-page PNGs took a third of the browser tests' time, for pictures only a
 * person reads: `CELLGATE_TEST_SCREENSHOTS=1 npm test <file>` takes them when wanted.
 */
export async function screenshot(page: Page, dir: string, name: string, fullPage = true): Promise<void> {
  if (process.env.CELLGATE_TEST_SCREENSHOTS !== '1') return;
  await page.screenshot({ path: `${artifactsDir(dir)}${name}.png`, fullPage });
}

/** A test app whose base and console URLs are where it listens (options.env may add to them). */
export function listeningApp(options: StartOptions = {}): Promise<{ t: TestApp; base: string }> {
  return listeningTestApp(options, (base) => ({ CELLGATE_CONSOLE_URL: `${base}/console` }));
}

const AXE_SOURCE = fileURLToPath(import.meta.resolve('axe-core/axe.min.js'));

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * axe-core's WCAG 2.1 A/AA checks of the page as it is now. The page's context must be created
 * with `bypassCSP: true`: axe is injected as a script the page's own policy would refuse.
 */
export async function accessibilityViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ path: AXE_SOURCE });
  return page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(options: unknown): Promise<{
            violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }>;
          }>;
        };
      }
    ).axe;
    const result = await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
}

/**
 * The values of the page's stacked tables (a phone's width, where the head row is not shown) that
 * do not say their column: each body cell must show its column's heading before it (data-label and
 * the stylesheet's ::before), unless its column's heading is for screen readers only (a column of
 * buttons, each naming what it does). Each problem names the table's caption and the cell.
 */
export async function unlabelledValues(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const problems = [];
    for (const table of document.querySelectorAll('table')) {
      const head = table.querySelector('thead');
      if (!head || getComputedStyle(head).display !== 'none') continue;
      const headings = [...head.querySelectorAll('th')];
      const caption = (table.caption?.textContent ?? 'a table').slice(0, 40);
      for (const cell of table.querySelectorAll('tbody td')) {
        const heading = headings[cell.cellIndex];
        if (!heading || heading.querySelector('.visually-hidden')) continue;
        const label = getComputedStyle(cell, '::before').content;
        if (!label.includes(heading.textContent.trim()))
          problems.push(caption + ': "' + cell.textContent.trim().slice(0, 30) + '" without "' + heading.textContent.trim() + '"');
      }
    }
    return problems;
  })()`);
}
