// Fixtures and gauges for the pod benchmarks: a pod of fresh cells on a running service, a JSON
// call, and the service process's CPU time and resident set read from /proc (Linux).
// Kept out of bench/*.ts so that bench/run.ts does not run it as a benchmark.
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { Organization, Service } from '../lib.ts';
import { provisionCell, request, type BenchCell } from './cells.ts';

/** `count` cells on new phones (at `sendRatePerMinute`) in one new pod of `org`. */
export async function provisionPod(
  service: Service,
  org: Organization,
  count: number,
  sendRatePerMinute = 30,
): Promise<{ podId: string; cells: BenchCell[] }> {
  const cells: BenchCell[] = [];
  for (let i = 0; i < count; i++) cells.push(await provisionCell(service, org, { sendRatePerMinute }));
  const pod = await request(`${service.url}/v1/pods`, {
    method: 'POST',
    headers: { authorization: `Bearer ${org.apiKey}` },
    body: {
      name: 'bench pod',
      client_id: `bench-${randomBytes(6).toString('hex')}`,
      cell_ids: cells.map((cell) => cell.cellId),
    },
    expect: 201,
  });
  return { podId: String(pod.id), cells };
}

/** User + system CPU seconds of a process (Linux, 100 ticks/s). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Resident set of a process in MB (Linux). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(status.match(/^VmRSS:\s+(\d+) kB/m)?.[1] ?? NaN) / 1024;
}

/** Runs `task(i)` for i in 0..count-1 with `concurrency` at a time; wall-clock ms. */
export async function runConcurrently(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
  return performance.now() - started;
}
