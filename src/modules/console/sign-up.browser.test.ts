// A person runs their account from the console without curl, in Chromium: signs up (email,
// emailed code, organization name), meets the first cell's 402 in the page and pays it by card,
// creates the cell, renames it and releases it after the confirmation page. Every page on the way
// is axe-core clean (WCAG 2.1 AA); with CELLGATE_TEST_SCREENSHOTS=1, screenshots in test-artifacts/console-sign-up/.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { uniqueEmail, type TestApp } from '../../../test/harness.ts';
import {
  accessibilityViolations,
  screenshot,
  launchChromium,
  listeningApp,
  skipWithoutChromium,
} from '../../../test/support/browser.ts';

describe('console sign-up and cells in a browser', { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;

  before(async () => {
    ({ t, base } = await listeningApp());
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('signs up, pays the first 402 by card, creates, renames and releases a cell', async () => {
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    const violations: string[] = [];
    const check = async (name: string) => {
      await screenshot(page, 'console-sign-up', name);
      for (const v of await accessibilityViolations(page)) violations.push(`${name}: ${v.id} ${v.help} ${v.nodes[0]}`);
    };
    const email = uniqueEmail();

    await page.goto(`${base}/console/sign-in`);
    await page.getByRole('link', { name: 'Sign up' }).click();
    await page.waitForURL(`${base}/console/sign-up`);
    await check('sign-up');
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Organization name').fill('Browser Bistro');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    assert.match(await page.getByLabel('API key', { exact: true }).inputValue(), /^cg_live_/);
    await check('sign-up-code');
    await page.getByLabel('Verification code').fill(t.mail.codeFor(email));
    await page.getByRole('button', { name: 'Confirm and open the console' }).click();
    await page.waitForURL((url) => url.pathname === '/console/cells/new');
    await page.getByText('Your email is confirmed').waitFor();
    await check('first-cell');

    // The first cell: the 402 says what to pay, in the page.
    await page.getByLabel('Cell name').fill('Reservations');
    await page.getByRole('button', { name: 'Create cell' }).click();
    await page.getByRole('heading', { name: 'Payment needed: Starter plan setup, $20.00' }).waitFor();
    await check('first-cell-402');
    await page.getByRole('button', { name: 'Pay $20.00 by card' }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/v1/billing/checkout/pay_'));
    await check('checkout');
    await page.getByRole('button', { name: 'Pay $20.00' }).click();
    await page.getByRole('heading', { name: 'Paid: Starter plan setup' }).waitFor();
    await check('checkout-paid');
    await page.getByRole('link', { name: 'Back to Billing' }).click();
    await page.waitForURL((url) => url.pathname === '/console/billing');

    // Then the create goes through.
    await page.getByRole('link', { name: 'Cells', exact: true }).click();
    await page.getByRole('link', { name: 'Create a cell' }).click();
    await page.getByLabel('Cell name').fill('Reservations');
    await page.getByRole('button', { name: 'Create cell' }).click();
    await page.getByRole('heading', { name: 'Reservations', level: 1 }).waitFor();
    await check('cell');

    await page.getByRole('link', { name: 'Rename' }).click();
    await page.getByLabel('Cell name').fill('Bookings');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('heading', { name: 'Bookings', level: 1 }).waitFor();

    await page.getByRole('link', { name: 'Release' }).click();
    await page.getByRole('heading', { name: 'Release Bookings?' }).waitFor();
    await check('release');
    await page.getByRole('button', { name: 'Release Bookings' }).click();
    await page.waitForURL((url) => url.pathname === '/console/cells');
    await page.getByText('Cell released').waitFor();
    assert.equal(await page.getByRole('link', { name: 'Bookings' }).count(), 0);
    await check('released');
    await context.close();
    assert.deepEqual(violations, []);
  });
});
