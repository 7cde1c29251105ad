// A whole account run from the console in Chromium, without curl: sign up, meet the first cell's
// 402 and pay it on the local card page, add funds, create the cell, text a simulated phone's
// contact and get an answer with a code (both live in the thread), search the messages and export
// them as CSV, see the codes (a new one arrives live), build a pod with a draft and a broadcast
// whose progress is watched live to its end, set quiet hours, and release the cell. Every new page
// on the way is axe-core clean; with CELLGATE_TEST_SCREENSHOTS=1, screenshots in test-artifacts/console-walk/.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { uniqueEmail, type TestApp } from '../../../test/harness.ts';
import {
  accessibilityViolations,
  screenshot,
  launchChromium,
  listeningApp,
  skipWithoutChromium,
} from '../../../test/support/browser.ts';
import { addDevice, type TestDevice } from '../../../test/support/devices.ts';
import { claim, inbound, report, type Line } from '../../../test/support/messages.ts';

const GUEST = '+14155550123';

describe('a whole account in the console, in a browser', { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let device: TestDevice;

  before(async () => {
    ({ t, base } = await listeningApp());
    // The phone the operator has in stock: the first cell gets its number.
    device = await addDevice(t);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  // About 20 s on a quiet machine; the limit leaves room for a loaded one (the runner's default is 60 s).
  it(
    'signs up, pays, texts, searches and exports, reads codes, runs a pod and releases the cell',
    { timeout: 180_000 },
    async () => {
      const context = await browser.newContext({ acceptDownloads: true, bypassCSP: true });
      const page = await context.newPage();
      const violations: string[] = [];
      const check = async (name: string) => {
        await screenshot(page, 'console-walk', name);
        for (const v of await accessibilityViolations(page))
          violations.push(`${name}: ${v.id} ${v.help} ${v.nodes[0]}`);
      };
      const nav = (name: string) =>
        page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true }).click();
      const email = uniqueEmail();

      // Sign up with the emailed code.
      await page.goto(`${base}/console/sign-up`);
      await page.getByLabel('Email address').fill(email);
      await page.getByLabel('Organization name').fill('Walk-in Bistro');
      await page.getByRole('button', { name: 'Sign up' }).click();
      await page.getByLabel('Verification code').fill(t.mail.codeFor(email));
      await page.getByRole('button', { name: 'Confirm and open the console' }).click();
      await page.waitForURL((url) => url.pathname === '/console/cells/new');

      // The first cell's 402, paid by card; then funds for the texts.
      await page.getByLabel('Cell name').fill('Front desk');
      await page.getByRole('button', { name: 'Create cell' }).click();
      await page.getByRole('button', { name: 'Pay $20.00 by card' }).click();
      await page.getByRole('button', { name: 'Pay $20.00' }).click();
      await page.getByRole('heading', { name: 'Paid: Starter plan setup' }).waitFor();
      await page.getByRole('link', { name: 'Back to Billing' }).click();
      // Once the plan is paid, adding funds is the one thing to pay for: said, not a one-option radio.
      await page.getByText('Add funds to the prepaid balance').waitFor();
      await page.getByLabel('Amount to add, in US dollars').fill('25');
      await page.getByRole('button', { name: 'Pay by card' }).click();
      await page.getByRole('button', { name: 'Pay $25.00' }).click();
      await page.getByRole('heading', { name: /^Paid: / }).waitFor();

      // The cell, on the operator's phone.
      await page.goto(`${base}/console/cells/new`);
      await page.getByLabel('Cell name').fill('Front desk');
      await page.getByRole('button', { name: 'Create cell' }).click();
      await page.getByRole('heading', { name: 'Front desk', level: 1 }).waitFor();
      const cellId = new URL(page.url()).pathname.split('/').at(-1) as string;
      const line = { cell: { id: cellId }, device } as unknown as Line;

      // A text out; the phone sends it and the thread shows it live; the answer, with a code, too.
      await page.getByLabel('To', { exact: true }).fill(GUEST);
      await page.getByLabel('Message', { exact: true }).fill('Your table for two is ready.');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByRole('heading', { name: /Conversation with/ }).waitFor();
      await page.getByText('Live: new messages').waitFor();
      const [out] = await claim(t, line);
      assert.equal((await report(t, line, out.id, { event: 'sent' })).statusCode, 200);
      await page.locator(`#message-${out.id}`).getByText('Sent').waitFor();
      assert.equal(
        (await inbound(t, line, { from: GUEST, body: 'Thanks! Your Google verification code is 482913' })).statusCode,
        201,
      );
      await page.getByText('Verification code: 482913').waitFor();

      // Search the messages, then export the result.
      await nav('Messages');
      await page.getByLabel('Text contains').fill('TABLE');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('table').getByText('Your table for two is ready.').waitFor();
      assert.equal(await page.getByRole('table').getByRole('row').count(), 2, 'the header and one match');
      await check('messages');
      const downloading = page.waitForEvent('download');
      await page.getByRole('link', { name: 'Export all matches as CSV' }).click();
      const download = await downloading;
      assert.match(download.suggestedFilename(), /^cellgate-messages-\d{4}-\d{2}-\d{2}\.csv$/);
      const csv = await readFile(await download.path(), 'utf8');
      assert.equal(csv.split('\r\n').filter(Boolean).length, 2);
      assert.match(csv, /,Your table for two is ready\.,/);

      // The codes, and a new one arriving while the page is open.
      await nav('Codes');
      await page.getByText('482913').waitFor();
      await page.getByText('Live: new codes').waitFor();
      await check('codes');
      assert.equal((await inbound(t, line, { from: GUEST, body: 'Your Uber code is 7391' })).statusCode, 201);
      await page.getByText('7391', { exact: true }).waitFor();
      await page.getByText('Live. New code from').waitFor();

      // A pod of the cell: a draft sent, a broadcast watched to its end.
      await nav('Pods');
      await page.getByLabel('Pod name').fill('Evening team');
      await page.getByLabel(/Front desk/).check();
      await page.getByRole('button', { name: 'Create pod' }).click();
      await page.getByRole('heading', { name: 'Evening team', level: 1 }).waitFor();
      await check('pod');
      const drafts = page.locator('#drafts');
      await drafts.getByLabel('To').fill('+14155550124');
      await drafts.getByLabel('Message').fill('Your order is on its way.');
      await page.getByRole('button', { name: 'Save draft' }).click();
      await page.getByRole('button', { name: 'Send the draft to +1 415 555 0124' }).click();
      await page.getByText('No drafts.').waitFor();
      const cycles = page.locator('#cycles');
      await cycles.getByLabel('Message').fill('We open at 9 tomorrow.');
      await cycles.getByLabel('Recipients').fill('+14155550125\n+14155550126');
      await page.getByRole('button', { name: 'Start' }).click();
      await page.getByRole('heading', { name: 'Broadcast of Evening team' }).waitFor();
      await page.getByText('Live: the counts change').waitFor();
      await check('job');
      await t.services.cycleWorker.tick();
      for (const message of await claim(t, line)) {
        assert.equal((await report(t, line, message.id, { event: 'sent' })).statusCode, 200);
        assert.equal((await report(t, line, message.id, { event: 'delivered' })).statusCode, 200);
      }
      for (let i = 0; i < 10; i++) await t.services.cycleWorker.tick();
      await page.getByText('2 of 2 handled').waitFor();
      await page.getByText('Completed').waitFor();

      // Quiet hours on the cell, then release it.
      await nav('Cells');
      await page.getByRole('link', { name: 'Front desk' }).click();
      await page.getByLabel('Start').fill('21:00');
      await page.getByLabel('End', { exact: true }).fill('08:00');
      await page.getByLabel('Time zone').fill('America/New_York');
      await page.getByRole('button', { name: 'Save quiet hours' }).click();
      await page.getByText('21:00 to 08:00, America/New_York').waitFor();
      await check('cell');
      await page.getByRole('link', { name: 'Release' }).click();
      await page.getByRole('button', { name: 'Release Front desk' }).click();
      await page.getByText('Cell released').waitFor();
      await context.close();
      assert.deepEqual(violations, []);
    },
  );
});
