// A console with something on every page, for the browser walks over all of them (axe-core, widths):
// an organization with a cell, a conversation, a webhook whose delivery failed, a month of usage, a
// card checkout, a pod with a contact list; and Chromium signed in to it.
import assert from 'node:assert/strict';
import type { Browser, BrowserContext } from 'playwright-core';
import type { TestApp } from '../harness.ts';
import { launchChromium, listeningApp } from './browser.ts';
import { failedDelivery, usageOnDays } from './console-account.ts';
import { consoleLine, threadUrl, type ConsoleLine } from './console-conversations.ts';
import { inbound } from './messages.ts';
import { createPod } from './pods.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';

export const PARTICIPANT = '+14155550177';

export interface ConsoleWithEveryPage {
  t: TestApp;
  base: string;
  line: ConsoleLine;
  browser: Browser;
  /** Each page with a name (for screenshots), all answering 200 signed in. */
  pages: Array<[name: string, path: string]>;
  /** A browser context signed in to the console (`bypassCSP` for axe, which is injected). */
  signedIn(options?: { bypassCSP?: boolean }): Promise<BrowserContext>;
  close(): Promise<void>;
}

export async function consoleWithEveryPage(): Promise<ConsoleWithEveryPage> {
  const receiver: Receiver = await startReceiver();
  const { t, base } = await listeningApp();
  const line = await consoleLine(t);
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
  const checkoutUrl = new URL(started.json().checkout_url as string);
  const podId = (await createPod(t, line.org, [line.cell.id])).id;
  const list = await t.app.inject({
    method: 'POST',
    url: `/v1/pods/${podId}/lists`,
    headers: line.org.headers,
    payload: { name: 'Regulars', numbers: ['+14155550101', '+14155550102'] },
  });
  assert.equal(list.statusCode, 201, list.body);
  const browser = await launchChromium();
  const [name, value] = line.signIn.cookie.split('=');
  return {
    t,
    base,
    line,
    browser,
    pages: [
      ['cells', '/console/cells'],
      ['cell', `/console/cells/${line.cell.id}`],
      ['thread', threadUrl(line.cell.id, PARTICIPANT)],
      ['messages', '/console/messages?text=shop'],
      ['codes', '/console/codes'],
      ['pods', '/console/pods'],
      ['pod', `/console/pods/${podId}`],
      ['list', `/console/pods/${podId}/lists/${list.json().id}`],
      ['delete-pod', `/console/pods/${podId}/delete`],
      ['webhooks', '/console/webhooks'],
      ['keys', '/console/keys'],
      ['billing', '/console/billing'],
      ['grants', '/console/grants'],
      ['new-cell', '/console/cells/new'],
      ['rename', `/console/cells/${line.cell.id}/rename`],
      ['release', `/console/cells/${line.cell.id}/release`],
      ['checkout', `${checkoutUrl.pathname}${checkoutUrl.search}`],
      ['landing', '/'],
      ['errors', '/docs/errors'],
      ['payment-required', '/docs/errors/payment_required'],
    ],
    async signedIn(options = {}) {
      const context = await browser.newContext(options);
      await context.addCookies([{ name, value, url: `${base}/console` }]);
      return context;
    },
    async close() {
      await browser.close();
      await t.close();
      await receiver.stop();
    },
  };
}
