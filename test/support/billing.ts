// Test helpers for billing: seller addresses to configure, and the operator's grant and credit.
import { admin, type TestApp } from '../harness.ts';
import { createCell } from './cells.ts';

export const BASE_PAY_TO = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
export const SOLANA_PAY_TO = 'So11111111111111111111111111111111111111112';
export const BOTH_NETWORKS = { CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO, CELLGATE_X402_SOLANA_PAY_TO: SOLANA_PAY_TO };

async function operator(t: TestApp, organizationId: string, action: string, payload: Record<string, unknown>) {
  const response = await t.app.inject({
    method: 'POST',
    url: `/v1/admin/organizations/${organizationId}/${action}`,
    headers: admin,
    payload,
  });
  if (response.statusCode !== 200) throw new Error(`${action} failed: ${response.statusCode} ${response.body}`);
  return response.json();
}

/** The operator grants `months` paid periods of `tier`. */
export const grant = (t: TestApp, organizationId: string, tier = 'starter', months = 1) =>
  operator(t, organizationId, 'grant', { tier, months, reason: 'test' });

/** The operator credits the prepaid balance. */
export const credit = (t: TestApp, organizationId: string, amountUsd = '10.00') =>
  operator(t, organizationId, 'credits', { amount_usd: amountUsd, reason: 'test' });

/** Pays an intent on the local card checkout page, as a person would: start, then post the form. */
export async function payByCard(t: TestApp, headers: Record<string, string>, payload: Record<string, unknown>) {
  const started = await t.app.inject({ method: 'POST', url: '/v1/billing/checkout', headers, payload });
  if (started.statusCode !== 201) throw new Error(`checkout failed: ${started.statusCode} ${started.body}`);
  const url = new URL(started.json().checkout_url);
  const paid = await t.app.inject({
    method: 'POST',
    url: url.pathname + url.search,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: '',
  });
  if (paid.statusCode !== 200) throw new Error(`paying failed: ${paid.statusCode} ${paid.body}`);
  return started.json() as { payment_id: string; checkout_url: string };
}

/** Creates a cell past the included ones: pays a create_cell by card, then creates. */
export async function createExtraCell(t: TestApp, headers: Record<string, string>, displayName: string) {
  await payByCard(t, headers, { intent: 'create_cell' });
  return createCell(t, headers, displayName);
}
