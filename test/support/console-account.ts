// What the account pages' tests share: a signed-in organization, form posts carrying its CSRF
// token, usage records in the clock's month, and webhook deliveries that fail or give up.
import assert from 'node:assert/strict';
import { afterEach, beforeEach } from 'node:test';
import { activeOrganization, startApp, type TestApp } from '../harness.ts';
import { createEndpoint, deliveriesOf, emitEvent } from './webhooks.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';
import type { UsageRecordsTable } from '../../src/modules/billing/tables.ts';
import { postForm, signInConsole, type ConsoleSignIn } from './console.ts';

export type SignedInOrg = Awaited<ReturnType<typeof activeOrganization>> & { session: ConsoleSignIn };

/**
 * Registers per-test hooks: a fresh app (retry jitter fixed), an organization signed in to the
 * console and a webhook receiver, handed to `ready`; closed after each test.
 */
export function eachWithReceiver(ready: (t: TestApp, org: SignedInOrg, receiver: Receiver) => void): void {
  let t: TestApp;
  let receiver: Receiver;
  beforeEach(async () => {
    t = await startApp({ deps: { webhooks: { random: () => 0.5 } } });
    receiver = await startReceiver();
    ready(t, await signedInOrganization(t), receiver);
  });
  afterEach(async () => {
    await receiver.stop();
    await t.close();
  });
}

/** An active organization ($1,000 credit, pro tier) signed in to the console. */
export async function signedInOrganization(
  t: TestApp,
  organization?: Awaited<ReturnType<typeof activeOrganization>>,
): Promise<SignedInOrg> {
  const org = organization ?? (await activeOrganization(t));
  return { ...org, session: await signInConsole(t, org.email) };
}

/** A console form post with the session's cookie and CSRF token. */
export const post = (
  t: TestApp,
  org: SignedInOrg,
  url: string,
  fields: Record<string, string> = {},
  headers: Record<string, string> = {},
) => postForm(t, url, { csrf_token: org.session.csrf, ...fields }, { ...org.session.headers, ...headers });

export const page = (t: TestApp, org: SignedInOrg, url: string) =>
  t.app.inject({ method: 'GET', url, headers: org.session.headers });

/** The path and query of an absolute URL, for app.inject. */
export const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

const HOUR = 3600 * 1000;
let usageIds = 0;

/**
 * Usage records (written by sends in production; directly here) on the given days of the
 * clock's month (1-based), one hour into each day; `before` adds one in the previous month.
 * Returns the distinct dates with usage in the month.
 */
export async function usageOnDays(
  t: TestApp,
  organizationId: string,
  days: number[],
  options: { before?: boolean } = {},
): Promise<string[]> {
  const now = t.clock.now();
  const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const row = (at: number, type: UsageRecordsTable['type'], quantity: number, unit: number): UsageRecordsTable => ({
    id: `usg_console_${++usageIds}`,
    organization_id: organizationId,
    cell_id: 'cell_console',
    message_id: `msg_console_${usageIds}`,
    type,
    quantity,
    unit_price_micros: unit,
    amount_micros: unit * quantity,
    created_at: new Date(at).toISOString(),
  });
  const rows = days.flatMap((day, i) => {
    const at = start + (day - 1) * 24 * HOUR + HOUR;
    return [row(at, 'sms', i + 2, 10_000), row(at, 'mms', 1, 30_000)];
  });
  if (options.before) rows.push(row(start - HOUR, 'sms', 9, 10_000));
  await t.database.db.insertInto('usage_records').values(rows).execute();
  return [...new Set(days)].map((day) => new Date(start + (day - 1) * 24 * HOUR).toISOString().slice(0, 10));
}

/** An organization as the API sees it: its id and its key's headers. */
type ApiOrg = { organizationId: string; headers: Record<string, string> };

/** An endpoint at the receiver and one event whose first attempt fails (HTTP 500): the delivery. */
export async function failedDelivery(t: TestApp, org: ApiOrg, receiver: Receiver) {
  const endpoint = await createEndpoint(t, org.headers, receiver.url);
  receiver.respond = () => ({ status: 500 });
  await emitEvent(t, org.organizationId, 'message.received');
  assert.equal(await t.services.webhookWorker.deliverDue(), 1);
  const [delivery] = (await deliveriesOf(t, org.headers, endpoint.id)).deliveries;
  assert.equal(delivery.status, 'retrying');
  return { endpoint, delivery };
}

/** Fails every scheduled attempt of the endpoint's deliveries until they give up ('failed'). */
export async function giveUp(t: TestApp, org: ApiOrg, webhookId: string) {
  for (let i = 0; i < 10; i++) {
    const { deliveries } = await deliveriesOf(t, org.headers, webhookId);
    if (deliveries.every((d) => d.status === 'failed')) return deliveries;
    t.clock.advance(12 * HOUR);
    await t.services.webhookWorker.deliverDue();
  }
  throw new Error('the deliveries did not give up');
}

/** The latest delivery of an endpoint, read through the API. */
export const latestDelivery = async (t: TestApp, org: ApiOrg, webhookId: string) =>
  (await deliveriesOf(t, org.headers, webhookId)).deliveries[0];
