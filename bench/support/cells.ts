// Fixtures shared by the message benchmarks: a phone in the inventory and a cell on it, made through
// the admin and agent APIs of a running service (bench/lib.ts startService + signUpVerified).
// Kept out of bench/*.ts so that bench/run.ts does not run it as a benchmark.
import { randomInt } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import type { Organization, Service } from '../lib.ts';

export interface BenchCell {
  cellId: string;
  phoneNumber: string;
  deviceId: string;
  deviceKey: string;
}

/** A JSON request that must answer `expect`; returns the parsed body. */
export async function request(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown; expect?: number },
): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  const expected = init.expect ?? 200;
  if (response.status !== expected)
    throw new Error(`${init.method ?? 'GET'} ${url}: expected ${expected}, got ${response.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** A US number in the 555-01xx-style fictional range, valid for libphonenumber. */
export function benchPhoneNumber(): string {
  return `+1415555${String(randomInt(0, 10_000)).padStart(4, '0')}`;
}

/** `count` different valid numbers (+1 415 55x xxxx). */
export function distinctNumbers(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `+141555${String(50_000 + i).padStart(5, '0')}`);
}

/**
 * The phones' numbers (+1 415 556 xxxx), one after another: each benchmark starts a service on a new
 * database, and random picks collided (409) once a run provisioned dozens of phones.
 */
let phonesProvisioned = 0;
const nextPhoneNumber = () => `+1415556${String(phonesProvisioned++ % 10_000).padStart(4, '0')}`;

/** Adds a phone to the inventory (admin), then creates a cell for `org`, which gets that phone. */
export async function provisionCell(
  service: Service,
  org: Organization,
  options: { sendRatePerMinute?: number } = {},
): Promise<BenchCell> {
  const device = await request(`${service.url}/v1/admin/devices`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.adminToken}` },
    body: {
      phone_number: nextPhoneNumber(),
      label: 'bench',
      ...(options.sendRatePerMinute ? { send_rate_per_minute: options.sendRatePerMinute } : {}),
    },
    expect: 201,
  });
  const cell = await request(`${service.url}/v1/cells`, {
    method: 'POST',
    headers: { authorization: `Bearer ${org.apiKey}` },
    body: { display_name: 'bench' },
    expect: 201,
  });
  if (cell.status !== 'active' || cell.phone_number !== device.phone_number) {
    throw new Error(`the new cell did not get the new phone: ${JSON.stringify(cell)}`);
  }
  return {
    cellId: String(cell.id),
    phoneNumber: String(cell.phone_number),
    deviceId: String(device.id),
    deviceKey: String(device.device_key),
  };
}

/** Sorted-sample percentile (nearest rank), in the unit of the samples. */
export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** How busy the machine was (as bench/lib.ts printResults says it): figures from a loaded machine are not comparable. */
export function machineLoad(): string {
  return `machine: ${availableParallelism()} cores, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} (1, 5, 15 min)`;
}
