// Test helpers for modules that need phones in the inventory (cells, messages).
import type { TestApp } from '../harness.ts';
import { admin } from '../harness.ts';

let numberCounter = 0;

/** A valid, unused-in-this-process US number (+1 415 555 xxxx). */
export function uniquePhoneNumber(): string {
  numberCounter += 1;
  return `+1415555${String(numberCounter % 10_000).padStart(4, '0')}`;
}

export interface TestDevice {
  id: string;
  phoneNumber: string;
  key: string;
  headers: { 'x-phone-key': string };
  cellId: string | null;
}

/** Adds a phone through the admin surface; its id, number and key. */
export async function addDevice(t: TestApp, body: Record<string, unknown> = {}): Promise<TestDevice> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/v1/admin/devices',
    headers: admin,
    payload: { phone_number: uniquePhoneNumber(), ...body },
  });
  if (response.statusCode !== 201) throw new Error(`adding a device failed: ${response.statusCode} ${response.body}`);
  const device = response.json();
  return {
    id: device.id,
    phoneNumber: device.phone_number,
    key: device.device_key,
    headers: { 'x-phone-key': device.device_key },
    cellId: device.cell_id,
  };
}

export interface AuditEntryJson {
  action: string;
  reason: string | null;
  detail: Record<string, unknown> | null;
}

/** A device's operator audit log after it was added (its `device.create` entry left out), newest first. */
export async function auditSinceAdded(t: TestApp, deviceId: string): Promise<AuditEntryJson[]> {
  const response = await t.app.inject({ url: `/v1/admin/audit?target_id=${deviceId}`, headers: admin });
  if (response.statusCode !== 200) throw new Error(`reading the audit log failed: ${response.body}`);
  return (response.json().entries as AuditEntryJson[]).filter((entry) => entry.action !== 'device.create');
}

/** A heartbeat of the phone with `headers` (its X-Phone-Key), expected 200; the answer's body. */
export async function heartbeat(t: TestApp, headers: Record<string, string>, payload: Record<string, unknown> = {}) {
  const response = await t.app.inject({ method: 'POST', url: '/v1/device/heartbeat', headers, payload });
  if (response.statusCode !== 200) throw new Error(`heartbeat: ${response.statusCode} ${response.body}`);
  return response.json() as Record<string, unknown>;
}
