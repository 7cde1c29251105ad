// Fixtures shared by the message benchmarks: a phone in the inventory and a cell on it, made through
// the admin and agent APIs of a running service (bench/lib.ts startService + signUpVerified).
// Kept out of bench/*.ts so that bench/run.ts does not run it as a benchmark.
import { randomInt } from 'node:crypto';
import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import type { BenchOptions, ChildServer, LoadResult, Organization, Service } from '../lib.ts';

export interface BenchCell {
  cellId: string;
  phoneNumber: string;
  deviceId: string;
  deviceKey: string;
}

/** A JSON request that must answer `expect`; returns the parsed body. */
export async function request(url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown; expect?: number }): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  const expected = init.expect ?? 200;
  if (response.status !== expected) throw new Error(`${init.method ?? 'GET'} ${url}: expected ${expected}, got ${response.status} ${text}`);
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

/** Adds a phone to the inventory (admin), then creates a cell for `org`, which gets that phone. */
export async function provisionCell(service: Service, org: Organization, options: { sendRatePerMinute?: number } = {}): Promise<BenchCell> {
  const device = await request(`${service.url}/v1/admin/devices`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.adminToken}` },
    body: { phone_number: benchPhoneNumber(), label: 'bench', ...(options.sendRatePerMinute ? { send_rate_per_minute: options.sendRatePerMinute } : {}) },
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
  return { cellId: String(cell.id), phoneNumber: String(cell.phone_number), deviceId: String(device.id), deviceKey: String(device.device_key) };
}

/** Sorted-sample percentile (nearest rank), in the unit of the samples. */
export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/**
 * bench/lib.ts load() for requests that must differ: every `[<id>]` in the headers or body becomes a
 * fresh id per request (autocannon idReplacement), e.g. one Idempotency-Key per send; the bodies
 * are sent in turn.
 * TODO(bench/lib.ts owner): fold into load() as a target flag; kept here until lib.ts takes it.
 */
export async function loadDistinct(
  label: string,
  target: { url: string; method: 'POST'; headers: Record<string, string>; bodies: string[]; server?: ChildServer },
  options: BenchOptions,
): Promise<LoadResult> {
  // Each connection cycles through the bodies in order.
  const requests = target.bodies.map((body) => ({ method: target.method, body }));
  const base = { url: target.url, method: target.method, headers: target.headers, requests, connections: options.connections, idReplacement: true };
  if (options.warmup > 0) await autocannon({ ...base, duration: options.warmup });
  const cpuBefore = cpuSeconds(target.server?.child.pid);
  const result = await autocannon({ ...base, duration: options.duration });
  const cpuAfter = cpuSeconds(target.server?.child.pid);
  const outcome: LoadResult = {
    label,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    errors: result.errors,
    non2xx: result.non2xx,
    serverCpuUs: cpuBefore !== null && cpuAfter !== null && result.requests.total > 0 ? ((cpuAfter - cpuBefore) * 1e6) / result.requests.total : null,
  };
  if (outcome.errors > 0 || outcome.non2xx > 0 || outcome.total === 0) {
    throw new Error(`${label}: ${outcome.total} requests, ${outcome.non2xx} non-2xx, ${outcome.errors} errors; the figures would be meaningless`);
  }
  return outcome;
}

/** User + system CPU seconds of a process (Linux /proc, 100 ticks/s), or null. As bench/lib.ts's private one. */
function cpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** How busy the machine was (as bench/lib.ts printResults says it): figures from a loaded machine are not comparable. */
export function machineLoad(): string {
  return `machine: ${availableParallelism()} cores, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} (1, 5, 15 min)`;
}
