// The account pages in a real browser (playwright-core driving Debian's Chromium, launched as in
// console.browser.test.ts): sign in, create an API key and see it once, open billing and see the
// chart, pay by card through the 303 to the local card page (Chromium applies the page's CSP
// form-action to that redirect), retry a failed delivery. With CELLGATE_TEST_SCREENSHOTS=1, screenshots go to
// test-artifacts/console/account-*.png. Skipped only where no Chromium exists.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { activeOrganization, type TestApp } from '../../../../test/harness.ts';
import { screenshot, launchChromium, listeningApp, skipWithoutChromium } from '../../../../test/support/browser.ts';
import { startReceiver, type Receiver } from '../../../../test/support/webhook-receiver.ts';
import { failedDelivery, latestDelivery, usageOnDays } from '../../../../test/support/console-account.ts';

describe('console account pages in a browser', { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let receiver: Receiver;
  let browser: Browser;
  let base: string;

  before(async () => {
    receiver = await startReceiver();
    ({ t, base } = await listeningApp());
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.stop();
  });

  /** The sign-in code mailed to `email` (the mail goes out without being awaited). */
  async function mailedCode(email: string): Promise<string> {
    for (let i = 0; i < 200; i++) {
      const mail = t.mail.sent.findLast((m) => m.to === email && /sign-in code/.test(m.subject));
      if (mail) return t.mail.codeFor(email);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`no sign-in code mailed to ${email}`);
  }

  const shot = (page: Page, name: string) => screenshot(page, 'console', `account-${name}`);
  const main = async (page: Page) => String(await page.locator('main').textContent());

  it('signs in, creates a key shown once, sees the usage chart, pays by card and retries a failed delivery', async () => {
    const org = await activeOrganization(t);
    const dates = await usageOnDays(t, org.organizationId, [1, 2, 6]);
    const { endpoint } = await failedDelivery(t, org, receiver);
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });

    // Signed out: the keys page sends the browser to sign in, and back.
    await page.goto(`${base}/console/keys`);
    await page.getByLabel('Email address').fill(org.email);
    await page.getByLabel('Email address').press('Enter');
    await page.getByLabel('Sign-in code').fill(await mailedCode(org.email));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/console/keys');

    // A key, shown once.
    await page.getByLabel('Key name').fill('browser-agent');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = page.getByLabel('Your new API key');
    const key = await secret.inputValue();
    assert.match(key, /^cg_live_[A-Za-z0-9]{32}$/);
    assert.match(
      String(await page.getByRole('status').first().textContent()),
      /Copy it now: it will not be shown again/,
    );
    const who = await fetch(`${base}/v1/auth/whoami`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(who.status, 200);
    await shot(page, 'keys-created');
    // A reload neither shows it again nor creates another (the post was answered with a redirect).
    await page.reload();
    assert.ok(!(await page.content()).includes(key), 'not shown again');
    assert.equal((await main(page)).match(/browser-agent/g)?.length, 1);

    // Billing: the chart has a bar per day with usage and a name for assistive technology.
    await page.getByRole('link', { name: 'Billing' }).click();
    await page.waitForURL((url) => url.pathname === '/console/billing');
    const chart = page.getByRole('img', { name: /Usage per day in/ });
    await chart.waitFor();
    assert.equal(await page.locator('svg rect.bar').count(), dates.length);
    assert.equal(
      await page
        .getByRole('table', { name: /Usage by day in/ })
        .locator('tbody tr')
        .count(),
      dates.length,
    );
    await shot(page, 'billing');

    // Pay by card: the console's 303 reaches the local card page; paying credits the balance.
    await page.getByLabel('Amount to add, in US dollars').fill('20');
    await page.getByRole('button', { name: 'Pay by card' }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/v1/billing/checkout/pay_'));
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.getByRole('heading', { name: 'Paid' }).waitFor();
    await page.goto(`${base}/console/billing`);
    assert.match(await main(page), /\$1020\.00/);

    // Webhooks: the failed delivery, retried from its button, is queued and then delivered.
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL((url) => url.pathname === '/console/webhooks');
    assert.match(await main(page), /Failed, retrying/);
    await shot(page, 'webhooks-failed');
    receiver.respond = () => ({ status: 200 });
    await page.getByRole('button', { name: /^Retry the message\.received delivery/ }).click();
    await page.waitForURL((url) => url.searchParams.get('notice') === 'retried');
    assert.match(String(await page.getByRole('status').textContent()), /Delivery queued/);
    assert.equal((await latestDelivery(t, org, endpoint.id)).status, 'pending');
    await t.services.webhookWorker.deliverDue();
    await page.goto(`${base}/console/webhooks`);
    assert.match(await main(page), /Delivered/);
    assert.equal(await page.getByRole('button', { name: /^Retry/ }).count(), 0);
    await shot(page, 'webhooks-retried');
  });
});
