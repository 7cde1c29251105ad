// Server-side helpers for the SMSGate protocol tests (/mobile/v1): enroll and register a phone,
// give it a cell, sign a webhook as the app does. Plain HTTP; the app's test double is smsgate-app.ts.
import { randomUUID } from 'node:crypto';
import { activeOrganization, admin, type TestApp } from '../harness.ts';
import { createCell } from './cells.ts';
import { signPayload } from '../../src/modules/smsgate/signature.ts';

export interface MobilePhone {
  id: string;
  token: string;
  headers: Record<string, string>;
  signingKey: string;
}

let numbers = 0;
/** A fresh valid US number per call (the inventory keeps numbers unique). */
export function nextNumber(): string {
  numbers += 1;
  return `+1415555${String(1000 + (numbers % 9000)).padStart(4, '0')}`;
}

export async function enroll(t: TestApp, payload: Record<string, unknown> = {}) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/v1/admin/devices/enrollments',
    headers: admin,
    payload,
  });
  if (response.statusCode !== 201) throw new Error(`enroll: ${response.statusCode} ${response.body}`);
  return response.json() as { id: string; token: string; code: string; server_url: string };
}

export function twoSims(first = nextNumber(), second: string | null = nextNumber()) {
  return [
    { slotIndex: 0, simNumber: 1, phoneNumber: first, carrierName: 'T-Mobile', iccid: '8901260000000000001' },
    { slotIndex: 1, simNumber: 2, phoneNumber: second, carrierName: 'Mint', iccid: '8901260000000000002' },
  ];
}

export function register(t: TestApp, authorization: string, simCards: unknown[] = twoSims()) {
  return t.app.inject({
    method: 'POST',
    url: '/mobile/v1/device',
    headers: { authorization },
    payload: { name: 'Pixel 7', pushToken: null, simCards },
  });
}

/** Enrolls and registers a phone (two SIMs by default); its token headers and signing key. */
export async function mobilePhone(t: TestApp, simCards: unknown[] = twoSims()): Promise<MobilePhone> {
  const enrollment = await enroll(t);
  const response = await register(t, `Bearer ${enrollment.token}`, simCards);
  if (response.statusCode !== 201) throw new Error(`register: ${response.statusCode} ${response.body}`);
  const { id, token } = response.json();
  const headers = { authorization: `Bearer ${token}` };
  const settings = (await t.app.inject({ url: '/mobile/v1/settings', headers })).json();
  return { id, token, headers, signingKey: settings.webhooks.signing_key };
}

/**
 * An organization with an active cell carried by a new SMSGate phone (the only free line). Its
 * second SIM has no number by default, so it carries no cell and later tests' cells go to their own phones.
 */
export async function mobileLine(t: TestApp, simCards: unknown[] = twoSims(nextNumber(), null)) {
  const phone = await mobilePhone(t, simCards);
  const org = await activeOrganization(t);
  const cell = await createCell(t, org.headers);
  const device = (await t.app.inject({ url: `/v1/admin/devices/${phone.id}`, headers: admin })).json();
  if (device.cell_id !== cell.id) throw new Error(`the cell went to another phone: ${JSON.stringify(device)}`);
  return { phone, org, cell };
}

/** Posts a webhook as the app does (WebHookEventDTO, PayloadSingingPlugin.kt), signed unless told otherwise. */
export function webhook(
  t: TestApp,
  phone: MobilePhone,
  event: string,
  payload: Record<string, unknown>,
  options: { id?: string; key?: string; timestamp?: number; headers?: Record<string, string>; raw?: string } = {},
) {
  const body =
    options.raw ??
    JSON.stringify({ id: options.id ?? randomUUID(), webhookId: 'cellgate', event, deviceId: phone.id, payload });
  const timestamp = String(options.timestamp ?? Math.floor(t.clock.now().getTime() / 1000));
  return t.app.inject({
    method: 'POST',
    url: '/mobile/v1/webhooks/events',
    headers: {
      'content-type': 'application/json; charset=UTF-8',
      'x-timestamp': timestamp,
      'x-signature': signPayload(options.key ?? phone.signingKey, body, timestamp),
      ...options.headers,
    },
    payload: body,
  });
}
