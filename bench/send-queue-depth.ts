// Issue 36 §3: accepted sends per second and p99 (POST /v1/cells/{id}/messages/send, 202, a fresh
// Idempotency-Key per request, 1,000 recipients in turn, billing on, 50 connections, one cell)
// with the cell's queue starting empty and with 20,000 already queued on it, on SQLite and on
// PostgreSQL, for several builds side by side in one run: this checkout and each `--build
// label=dir` (an older tree with its own node_modules: `git clone -q <this repo> /tmp/old-bf76a0d
// && git -C /tmp/old-bf76a0d checkout -q bf76a0d && (cd /tmp/old-bf76a0d && npm ci)`). Also each
// service's resident set: idle (3 s after it answers /health, before any load; each build is
// started once beforehand, unmeasured, to fill Node's compile cache as bench/memory.ts does) and
// peak (VmHWM at the end). No device claims: the queue only grows. The service's CPU time per
// accepted send is the figure least moved by a busy machine; its main thread's share (the event
// loop) is what bounds the throughput. Targets (issue 36): sends/s at least the old build's at
// both depths; p99 <= 30 ms on SQLite; idle RSS <= 120 MB, peak <= 300 MB.
// Throughput moves ±10 % from run to run on a 2-core machine: `--rounds N` measures each build N
// times, alternating their order, and ends with each figure's median over the rounds.
//   node bench/send-queue-depth.ts [--build old=/tmp/old-bf76a0d ...] [--databases sqlite,postgres]
//     [--rounds 1] [--duration 5] [--connections 50] [--profile dir (a CPU profile per database and build)] [--warmup 5 (seconds of sends on a cell of their own first: the JIT's warm-up, or the first depth measured pays it)]
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { benchOptions, load, ROOT, runBench, signUpVerified, startService, type Service } from './lib.ts';
import { distinctNumbers, machineLoad, provisionCell } from './support/cells.ts';

const DEEP = 20_000;
const IDLE_AFTER_MS = 3000;

// Strict, with the common flags declared: a flag's value is never taken for a positional argument.
const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    build: { type: 'string', multiple: true, default: [] },
    databases: { type: 'string', default: 'sqlite,postgres' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '1' },
    profile: { type: 'string' },
  },
});
const options = benchOptions([
  '--duration',
  values.duration,
  '--connections',
  values.connections,
  '--warmup',
  values.warmup,
  ...(values.profile ? ['--profile', values.profile] : []),
]);
const builds = [
  ...values.build.map((spec) => {
    const [label, dir] = spec.split('=');
    if (!label || !dir) throw new Error(`--build takes label=dir, not ${spec}`);
    return { label, root: resolve(dir) };
  }),
  { label: 'this checkout', root: ROOT },
];
const databases = values.databases.split(',');
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds must be a positive integer, not ${values.rounds}`);

function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

interface Row {
  database: string;
  build: string;
  depth: string;
  sendsPerSecond: number;
  p50: number;
  p99: number;
  cpuUs: number | null;
  mainCpuUs: number | null;
  queuedAfter: number;
  idleMb: number;
  peakMb: number;
}

async function queuedOn(service: Service, apiKey: string): Promise<number> {
  const status = await fetch(`${service.url}/v1/agent/status`, { headers: { authorization: `Bearer ${apiKey}` } });
  return ((await status.json()) as { messages: { queued: number } }).messages.queued;
}

async function measure(database: string, build: { label: string; root: string }): Promise<Row[]> {
  const service = await startService({
    postgres: database === 'postgres',
    entry: resolve(build.root, 'src/entry.mjs'),
    env: { CELLGATE_BILLING: 'on', NODE_OPTIONS: '--max-semi-space-size=16' },
    profile: options.profile && resolve(options.profile, `${database}-${build.label.replaceAll(' ', '-')}`),
  });
  try {
    const pid = service.child.pid as number;
    await sleep(IDLE_AFTER_MS);
    const idleMb = memoryOf(pid).rss;
    const org = await signUpVerified(service);
    // The measured sends go to the first 1,000 numbers; the queue is filled with sends to the next
    // 1,000, so that both depths start the measured sends with no conversation made (a cell's first
    // send to a number makes one: the deep queue's filling would otherwise make them beforehand).
    const [bodies, fillBodies] = [0, 1].map((half) =>
      distinctNumbers(2_000)
        .slice(half * 1_000, (half + 1) * 1_000)
        .map((to) => JSON.stringify({ to, body: 'Benchmark message: hello from Cellgate.' })),
    );
    const target = (cellId: string, tag: string) => ({
      url: `${service.url}/v1/cells/${cellId}/messages/send`,
      method: 'POST' as const,
      headers: {
        authorization: `Bearer ${org.apiKey}`,
        'content-type': 'application/json',
        'idempotency-key': `${tag}-[<id>]`,
      },
      bodies,
      server: service,
    });
    // Sends not measured: the warm-up and the queue's filling.
    const unmeasured = (cellId: string, tag: string, limit: { duration: number } | { amount: number }) =>
      autocannon({
        ...target(cellId, tag),
        requests: fillBodies.map((body) => ({ method: 'POST', body })),
        idReplacement: true,
        connections: options.connections,
        ...limit,
      });
    // A warm process first (on a cell of its own; a time-out there on a busy machine does not
    // matter), then each depth on a fresh cell.
    const warm = await provisionCell(service, org);
    if (options.warmup > 0) await unmeasured(warm.cellId, 'warm', { duration: options.warmup });
    const rows: Row[] = [];
    for (const depth of [0, DEEP]) {
      const cell = await provisionCell(service, org);
      if (depth > 0) {
        const fill = await unmeasured(cell.cellId, 'fill', { amount: depth });
        if (fill['2xx'] !== depth) throw new Error(`filling the queue: ${fill['2xx']} of ${depth} sends accepted`);
      }
      const before = await queuedOn(service, org.apiKey);
      const result = await load(`${depth}`, target(cell.cellId, `d${depth}`), { ...options, warmup: 0 });
      rows.push({
        database,
        build: build.label,
        depth: depth === 0 ? 'empty' : depth.toLocaleString('en'),
        sendsPerSecond: result.requestsPerSecond,
        p50: result.p50,
        p99: result.p99,
        cpuUs: result.serverCpuUs,
        mainCpuUs: result.serverMainCpuUs,
        queuedAfter: (await queuedOn(service, org.apiKey)) - before + depth,
        idleMb,
        peakMb: 0,
      });
    }
    const peakMb = memoryOf(pid).hwm;
    for (const row of rows) row.peakMb = peakMb;
    return rows;
  } finally {
    await service.stop();
  }
}

/** The median of each figure over the rounds, per database, build and depth. */
function medians(rows: Row[]): Row[] {
  const groups = Map.groupBy(rows, (row) => `${row.database}\n${row.build}\n${row.depth}`);
  const median = (values: number[]) => {
    const sorted = values.toSorted((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  };
  return [...groups.values()].map((group) => {
    const of = (figure: (row: Row) => number | null) => median(group.map((row) => figure(row) ?? Number.NaN));
    return {
      ...group[0],
      sendsPerSecond: of((row) => row.sendsPerSecond),
      p50: of((row) => row.p50),
      p99: of((row) => row.p99),
      cpuUs: of((row) => row.cpuUs),
      mainCpuUs: of((row) => row.mainCpuUs),
      queuedAfter: Math.round(of((row) => row.queuedAfter)),
      idleMb: of((row) => row.idleMb),
      peakMb: of((row) => row.peakMb),
    };
  });
}

function table(title: string, rows: Row[]): string {
  const header = [
    'database',
    'build',
    'queue at start',
    'sends/s',
    'p50 ms',
    'p99 ms',
    'CPU µs/send',
    'main thread',
    'queue at end',
    'idle RSS',
    'peak RSS',
  ];
  const lines = rows.map((row) => [
    row.database,
    row.build,
    row.depth,
    row.sendsPerSecond.toFixed(0),
    String(row.p50),
    String(row.p99),
    ...[row.cpuUs, row.mainCpuUs].map((us) => (us === null || Number.isNaN(us) ? '-' : us.toFixed(0))),
    row.queuedAfter.toLocaleString('en'),
    `${row.idleMb.toFixed(0)} MB`,
    `${row.peakMb.toFixed(0)} MB`,
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...lines.map((line) => line[i].length)));
  const format = (cells: string[]) => cells.map((cell, i) => cell.padStart(widths[i])).join('  ');
  return [title, machineLoad(), format(header), ...lines.map(format), ''].join('\n');
}

await runBench(async () => {
  for (const build of builds) await (await startService({ entry: resolve(build.root, 'src/entry.mjs') })).stop();
  const title = `sends/s with the cell's queue empty and ${DEEP.toLocaleString('en')} deep (${options.connections} connections, ${options.duration} s each, billing on)`;
  const rows: Row[] = [];
  for (let round = 1; round <= rounds; round++) {
    // Every other round the builds go in the other order: neither always runs on a warmer machine.
    const order = round % 2 ? builds : builds.toReversed();
    const measured: Row[] = [];
    for (const database of databases) for (const build of order) measured.push(...(await measure(database, build)));
    rows.push(...measured);
    process.stdout.write(table(rounds > 1 ? `round ${round} of ${rounds}: ${title}` : title, measured));
  }
  if (rounds > 1) process.stdout.write(table(`medians of ${rounds} rounds: ${title}`, medians(rows)));
});
