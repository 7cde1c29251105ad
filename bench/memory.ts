// Issue 10: the service's memory. Starts `node src/entry.mjs serve` with the Node flags of
// `npm start` (on a temporary SQLite file, or --postgres), reads the child's resident set from
// /proc/<pid>/status: idle 3 s after it answers /health, then the peak (VmHWM, and the highest
// VmRSS sampled every 100 ms) under 15 s of sends from 200 connections. Targets: idle <= 120 MB,
// peak <= 300 MB. A first start, not measured, fills Node's compile cache as any earlier start
// would have: without it the service strips its TypeScript itself (about 15 MB more).
// Client errors under load (timeouts on a busy machine) are reported after the figures.
//   npm run bench:memory [-- --postgres] [--duration 15] [--connections 200] [--warmup 0] [--profile dir]
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  benchOptions,
  load,
  printResults,
  ROOT,
  runBench,
  signUpVerified,
  startService,
  type LoadResult,
} from './lib.ts';
import { distinctNumbers, provisionCell } from './support/cells.ts';

const IDLE_TARGET_MB = 120;
const PEAK_TARGET_MB = 300;
const IDLE_AFTER_MS = 3000;
// The conditions by default; flags given on the command line come later and win.
const options = benchOptions(['--duration', '15', '--connections', '200', '--warmup', '0', ...process.argv.slice(2)]);

/** VmRSS and VmHWM of a process in MB (Linux). */
function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

const mb = (value: number) => `${value.toFixed(0)} MB`;

/** The Node flags of the start script (`node --max-semi-space-size=16 src/entry.mjs serve`). */
function startFlags(): string[] {
  const { scripts } = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { scripts: { start: string } };
  const words = scripts.start.split(/\s+/);
  return words.slice(words.indexOf('node') + 1).filter((word) => word.startsWith('--'));
}

await runBench(async (onExit) => {
  const env = { NODE_OPTIONS: startFlags().join(' ') };
  await (await startService({ postgres: options.postgres, env })).stop();
  const service = await startService({ postgres: options.postgres, profile: options.profile, env });
  onExit(() => service.stop());
  const pid = service.child.pid;
  if (pid === undefined) throw new Error('the service has no pid');

  await sleep(IDLE_AFTER_MS);
  const idle = memoryOf(pid);

  const org = await signUpVerified(service);
  const cell = await provisionCell(service, org);
  let sampledPeak = memoryOf(pid).rss;
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, memoryOf(pid).rss);
  }, 100);
  let sends: LoadResult | undefined;
  let clientErrors: unknown;
  try {
    sends = await load(
      'POST .../messages/send, 1,000 recipients',
      {
        url: `${service.url}/v1/cells/${cell.cellId}/messages/send`,
        method: 'POST',
        headers: {
          authorization: `Bearer ${org.apiKey}`,
          'content-type': 'application/json',
          'idempotency-key': 'memory-[<id>]',
        },
        bodies: distinctNumbers(1_000).map((to) =>
          JSON.stringify({ to, body: 'Benchmark message: hello from Cellgate.' }),
        ),
        server: service,
      },
      options,
    );
  } catch (error) {
    clientErrors = error;
  } finally {
    clearInterval(sampler);
  }
  const after = memoryOf(pid);
  const peak = Math.max(after.hwm, sampledPeak);

  const title = `memory of the service on ${service.database} (${env.NODE_OPTIONS || 'no Node flags'}): ${options.duration} s of sends, ${options.connections} connections`;
  if (sends) printResults(title, [sends]);
  else process.stdout.write(`${title}\n`);
  process.stdout.write(
    `idle RSS ${IDLE_AFTER_MS / 1000} s after start: ${mb(idle.rss)} (target <= ${IDLE_TARGET_MB} MB) ${idle.rss <= IDLE_TARGET_MB ? 'MET' : 'NOT MET'}\n`,
  );
  process.stdout.write(
    `peak RSS under load: ${mb(peak)} (target <= ${PEAK_TARGET_MB} MB) ${peak <= PEAK_TARGET_MB ? 'MET' : 'NOT MET'}; RSS after the load ${mb(after.rss)}\n`,
  );
  // The memory figures stand (the service was under load), the throughput does not: say so, and fail.
  if (clientErrors) {
    throw new Error(
      `client errors under load: ${clientErrors instanceof Error ? clientErrors.message : String(clientErrors)}`,
    );
  }
});
