// The Cells section in a real browser (playwright-core driving Debian's Chromium): sign in, open a
// cell, watch an inbound text arrive through the device surface without a reload (in the
// conversation list, then in the thread's aria-live log), reply through the form and see its
// status change live. With CELLGATE_TEST_SCREENSHOTS=1, screenshots go to test-artifacts/console/cells-*.png. Skipped only where no
// Chromium exists.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import type { TestApp } from '../../../../test/harness.ts';
import { screenshot, launchChromium, listeningApp, skipWithoutChromium } from '../../../../test/support/browser.ts';
import { claim, inbound, report } from '../../../../test/support/messages.ts';
import { apiMessages, consoleLine, type ConsoleLine } from '../../../../test/support/console-conversations.ts';

const PARTICIPANT = '+14155550188';

describe('console cells in a browser', { skip: skipWithoutChromium }, () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let line: ConsoleLine;

  before(async () => {
    ({ t, base } = await listeningApp());
    line = await consoleLine(t);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  // A mark on the page's global object that a reload or a navigation would wipe out.
  const mark = (page: Page) => page.evaluate(() => Object.assign(globalThis, { stillHere: true }));
  const marked = (page: Page) => page.evaluate(() => (globalThis as { stillHere?: boolean }).stillHere === true);
  const shot = (page: Page, name: string) => screenshot(page, 'console', `cells-${name}`);

  /** Signs in through the pages by keyboard, landing on the cells list. */
  async function signIn(page: Page) {
    await page.goto(`${base}/console/cells`);
    await page.waitForURL((url) => url.pathname === '/console/sign-in');
    await page.getByLabel('Email address').fill(line.org.email);
    await page.getByLabel('Email address').press('Enter');
    await page.getByLabel('Sign-in code').fill(t.mail.codeFor(line.org.email));
    await page.getByLabel('Sign-in code').press('Enter');
    await page.waitForURL((url) => url.pathname === '/console/cells');
  }

  it('shows an inbound text live, without a reload, and sends a reply whose status follows live', async () => {
    const page = await browser.newPage();
    const scriptErrors: string[] = [];
    page.on('pageerror', (error) => scriptErrors.push(String(error)));
    // The failed load is the 400 of the empty reply below, expected.
    page.on(
      'console',
      (message) =>
        message.type() === 'error' &&
        !message.text().startsWith('Failed to load resource') &&
        scriptErrors.push(message.text()),
    );
    await signIn(page);
    assert.equal(await page.title(), 'Cells — Cellgate Console');
    await shot(page, 'list');
    // The list is live too: the phone calls in, and its row says so without a reload.
    await page.getByRole('status').filter({ hasText: 'Live:' }).waitFor();
    await mark(page);
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/v1/device/heartbeat', headers: line.device.headers, payload: {} }))
        .statusCode,
      200,
    );
    await page.locator(`#cell-row-${line.cell.id}`).getByText('Online').waitFor();
    assert.equal(await marked(page), true, 'no reload');

    await page.getByRole('link', { name: 'Support line' }).click();
    await page.waitForURL((url) => url.pathname === `/console/cells/${line.cell.id}`);
    await page.getByRole('status').filter({ hasText: 'Live:' }).waitFor();
    await mark(page);

    assert.equal((await inbound(t, line, { from: PARTICIPANT, body: 'Hi, is my order ready?' })).statusCode, 201);
    const conversation = page.locator('#conversations li', { hasText: 'Hi, is my order ready?' });
    await conversation.waitFor();
    await page.getByRole('status').filter({ hasText: 'New message from +1 415 555 0188.' }).waitFor();
    await page.locator('#cell-state').getByText('Online').waitFor();
    assert.equal(await marked(page), true, 'no reload');
    await shot(page, 'cell');

    await conversation.getByRole('link').click();
    await page.waitForURL((url) => url.pathname.endsWith(`/conversations/${encodeURIComponent(PARTICIPANT)}`));
    await page.getByRole('status').filter({ hasText: 'Live:' }).waitFor();
    await mark(page);
    const log = page.getByRole('log', { name: 'Messages with +1 415 555 0188' });
    assert.equal(await log.getAttribute('aria-live'), 'polite');

    t.clock.advance(1000);
    assert.equal((await inbound(t, line, { from: PARTICIPANT, body: 'Hello again, from outside' })).statusCode, 201);
    await log.getByText('Hello again, from outside').waitFor();
    assert.equal(await marked(page), true, 'no reload');
    assert.deepEqual(await log.locator('.message-body').allTextContents(), [
      'Hi, is my order ready?',
      'Hello again, from outside',
    ]);
    await shot(page, 'thread-live');

    // An empty reply: the error is on the field, announced with it, and focused.
    await page.getByLabel('Message to +1 415 555 0188').fill('');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Enter a message.').waitFor();
    assert.equal(await page.locator(':focus').getAttribute('id'), 'body');
    assert.match(
      String(await page.getByLabel('Message to +1 415 555 0188').getAttribute('aria-describedby')),
      /body-error/,
    );
    await shot(page, 'error');

    // By keyboard: type the reply, Tab to Send, Enter.
    await page.getByLabel('Message to +1 415 555 0188').fill('Yes, it is ready for pickup.');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.hash.startsWith('#message-msg_'));
    const [reply] = await apiMessages(t, line);
    assert.equal(reply.body, 'Yes, it is ready for pickup.');
    assert.equal(reply.to, PARTICIPANT);
    const sent = page.locator(`#message-${reply.id}`);
    await sent.getByText('Queued').waitFor();
    await page.getByRole('status').filter({ hasText: 'Live:' }).waitFor();

    // The phone sends it and the carrier delivers it: the status changes in place.
    await claim(t, line);
    assert.equal((await report(t, line, reply.id, { event: 'sent' })).statusCode, 200);
    assert.equal((await report(t, line, reply.id, { event: 'delivered' })).statusCode, 200);
    await sent.getByText('Delivered').waitFor();
    assert.equal(await log.locator('li').count(), 3);
    await shot(page, 'thread-reply');
    assert.deepEqual(scriptErrors, []);
  });
});
