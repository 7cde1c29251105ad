// Shared helpers for the benchmarks: start the real service (and reference servers) as child
// processes on loopback, sign up and verify through HTTP, drive load with autocannon, print figures.
// Benchmarks print figures; they are never part of `npm test`.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';

export const ROOT = resolve(import.meta.dirname, '..');
const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface BenchOptions {
  /** Run the service on PostgreSQL instead of a temporary SQLite file. */
  postgres: boolean;
  /** Seconds of measured load per target. */
  duration: number;
  connections: number;
  /** Seconds of unmeasured load before each measurement. */
  warmup: number;
  /** Directory for `node --cpu-prof` profiles of the service, or null. */
  profile: string | null;
}

/** Common flags: --postgres, --duration <s>, --connections <n>, --warmup <s>, --profile <dir>. */
export function benchOptions(argv: string[] = process.argv.slice(2)): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      postgres: { type: 'boolean', default: false },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '50' },
      warmup: { type: 'string', default: '2' },
      profile: { type: 'string' },
    },
  });
  const number = (name: string, raw: string) => {
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} must be a non-negative number`);
    return value;
  };
  return {
    postgres: values.postgres,
    duration: number('duration', values.duration),
    connections: Math.max(1, Math.floor(number('connections', values.connections))),
    warmup: number('warmup', values.warmup),
    profile: values.profile ? resolve(values.profile) : null,
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

export interface ChildServer {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Spawns `node <args>` from the repository root and waits until `readyPath` answers 200.
 * The child's stderr is shown only when it fails to start.
 */
/** What `cellgate serve` prints once it listens on `port` (its start-up banner's first line). */
// Older builds (bench/send-queue-depth.ts runs them beside this one) go on after the address on the same line.
export const serviceReadyLine = (port: number): RegExp =>
  new RegExp(`listening on http://127\\.0\\.0\\.1:${port}[\\n ]`);

export async function startChild(options: {
  args: string[];
  env: Record<string, string>;
  port: number;
  readyPath: string;
  nodeFlags?: string[];
  timeoutMs?: number;
  /**
   * A line the child prints once it listens. Without it, a free port taken by another process
   * between freePort() and the child's listen would pass the readiness probe with the other
   * process's answer (seen: a test's admin calls refused by another test's server).
   */
  readyLine?: RegExp;
}): Promise<ChildServer> {
  const url = `http://127.0.0.1:${options.port}`;
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), ...options.args], {
    cwd: ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', options.readyLine ? 'pipe' : 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-8000);
  });
  let listening = !options.readyLine;
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout = (stdout + chunk.toString()).slice(-8000);
    if (options.readyLine?.test(stdout)) listening = true;
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };

  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${options.args.join(' ')} exited before it was ready:\n${stderr}`);
    }
    try {
      const response = listening ? await fetch(url + options.readyPath) : undefined;
      if (response?.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${options.args.join(' ')} was not ready within ${options.timeoutMs ?? 30_000} ms:\n${stderr}`);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  return { url, child, stop };
}

export interface Service extends ChildServer {
  adminToken: string;
  database: string;
}

/**
 * The real service (`node src/entry.mjs serve`, as npm start) on a free port with rate limits off and warn-level
 * logs, on a temporary SQLite file or on a PostgreSQL database created for it. stop() ends the
 * process and removes the database.
 */
/**
 * The environment of a `cellgate serve` child: the given database, port and admin token; no rate
 * limits, Redis or SMTP (the dev outbox holds the codes); warnings only in the log.
 */
export function serviceEnv(options: { databaseUrl: string; port: number; adminToken: string }): Record<string, string> {
  return {
    CELLGATE_DATABASE_URL: options.databaseUrl,
    CELLGATE_HOST: '127.0.0.1',
    CELLGATE_PORT: String(options.port),
    CELLGATE_BASE_URL: '',
    CELLGATE_ADMIN_TOKEN: options.adminToken,
    CELLGATE_RATE_LIMIT: '0',
    CELLGATE_SIGNUP_RATE_LIMIT: '0',
    CELLGATE_REDIS_URL: '',
    CELLGATE_SMTP_URL: '',
    CELLGATE_LOG_LEVEL: 'warn',
  };
}

/** Benches provision more phones than pro's 10 included cells (30 segments a minute each). */
const BENCH_PRICES = { CELLGATE_PRICES: JSON.stringify({ tiers: { pro: { usd: '100.00', cells: 1000 } } }) };

export async function startService(
  options: {
    postgres?: boolean;
    env?: Record<string, string>;
    /** Directory for a CPU profile of the service (`node --cpu-prof`). */
    profile?: string | null;
    /** Entry point relative to the repository root, for A/B runs against a modified copy. */
    entry?: string;
  } = {},
): Promise<Service> {
  const port = await freePort();
  const adminToken = `cg_adm_${randomBytes(16).toString('hex')}`;
  let databaseUrl: string;
  let dropDatabase: () => Promise<void>;
  if (options.postgres) {
    const adminUrl = process.env.CELLGATE_BENCH_POSTGRES_URL || DEFAULT_POSTGRES_URL;
    const name = `cellgate_bench_${process.pid}_${Date.now()}`;
    await withPostgres(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    dropDatabase = async () => {
      await withPostgres(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    };
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'cellgate-bench-'));
    databaseUrl = `sqlite:${join(dir, 'bench.db')}`;
    dropDatabase = async () => rmSync(dir, { recursive: true, force: true });
  }

  let server: ChildServer;
  try {
    server = await startChild({
      args: [options.entry ?? 'src/entry.mjs', 'serve'],
      nodeFlags: options.profile ? ['--cpu-prof', `--cpu-prof-dir=${options.profile}`] : [],
      port,
      readyPath: '/health',
      readyLine: serviceReadyLine(port),
      env: { ...serviceEnv({ databaseUrl, port, adminToken }), ...BENCH_PRICES, ...options.env },
    });
  } catch (error) {
    await dropDatabase();
    throw error;
  }
  return {
    ...server,
    adminToken,
    database: options.postgres ? 'PostgreSQL' : 'SQLite',
    async stop() {
      await server.stop();
      await dropDatabase();
    },
  };
}

/** What the service itself spent answering each route so far (its /metrics histogram), by "METHOD /route/pattern". */
export async function serverTimes(service: Service): Promise<Map<string, { count: number; seconds: number }>> {
  const text = await fetch(`${service.url}/metrics`, {
    headers: { authorization: `Bearer ${service.adminToken}` },
  }).then((response) => response.text());
  const times = new Map<string, { count: number; seconds: number }>();
  for (const [, field, labels, value] of text.matchAll(
    /^cellgate_http_request_duration_seconds_(sum|count)\{([^}]*)\} (\S+)$/gm,
  )) {
    const label = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(labels)?.[1];
    const route = `${label('method')} ${label('route')}`;
    const time = times.get(route) ?? { count: 0, seconds: 0 };
    if (field === 'sum') time.seconds += Number(value);
    else time.count += Number(value);
    times.set(route, time);
  }
  return times;
}

async function withPostgres<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** A bare Fastify server with one JSON route (GET /hello), the reference for overhead ratios. */
export function startBareFastify(): Promise<ChildServer> {
  return freePort().then((port) =>
    startChild({ args: ['bench/servers/bare-fastify.ts'], port, readyPath: '/hello', env: { PORT: String(port) } }),
  );
}

async function call(url: string, init: { method?: string; token?: string; body?: unknown }) {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

export interface Organization {
  organizationId: string;
  apiKey: string;
  email: string;
}

/** Signs up, reads the code from the dev outbox (admin token), verifies, is paid for by the operator. */
export async function signUpVerified(
  service: Service,
  email = `bench-${randomBytes(6).toString('hex')}@example.com`,
): Promise<Organization> {
  const signUp = await call(`${service.url}/v1/agent/sign-up`, {
    method: 'POST',
    body: { email, organization_name: 'Bench' },
  });
  const apiKey = String(signUp.api_key);
  const outbox = await call(`${service.url}/v1/admin/outbox?to=${encodeURIComponent(email)}&limit=1`, {
    token: service.adminToken,
  });
  const mail = (outbox.messages as { subject: string; text: string }[])[0];
  const code = (mail?.subject + ' ' + mail?.text).match(/\b(\d{6})\b/)?.[1];
  if (!code) throw new Error(`no verification code in the dev outbox for ${email}`);
  await call(`${service.url}/v1/agent/verify`, { method: 'POST', token: apiKey, body: { code } });
  // With billing on (the default) the operator pays: a year of pro and a balance no bench spends.
  const organizationId = String(signUp.organization_id);
  await call(`${service.url}/v1/admin/organizations/${organizationId}/grant`, {
    method: 'POST',
    token: service.adminToken,
    body: { tier: 'pro', months: 12, reason: 'bench' },
  });
  await call(`${service.url}/v1/admin/organizations/${organizationId}/credits`, {
    method: 'POST',
    token: service.adminToken,
    body: { amount_usd: '1000000.00', reason: 'bench' },
  });
  return { organizationId, apiKey, email };
}

export interface LoadResult {
  label: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  total: number;
  errors: number;
  non2xx: number;
  /** CPU time (user + system) the server process spent per request, in µs; null off Linux. */
  serverCpuUs: number | null;
  /** The same for its main thread alone (the event loop, which bounds its throughput). */
  serverMainCpuUs: number | null;
  /** 2xx answers in the warm-up and the measurement together. */
  succeeded: number;
}

/**
 * User + system CPU seconds of a process from /proc (Linux, 100 ticks/s), or null; of its main
 * thread alone with `mainThread` (the others: the garbage collector's, SQLite's checkpointer).
 */
export function cpuSeconds(pid: number | undefined, mainThread = false): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/**
 * Unmeasured warm-up, then `duration` seconds of load with `connections` connections. With
 * `server`, also the CPU time that process spent per request (less sensitive to a busy machine).
 */
export async function load(
  label: string,
  target: {
    url: string;
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
    /** Bodies sent in turn by each connection; every `[<id>]` in them or the headers becomes a fresh id. */
    bodies?: string[];
    server?: ChildServer;
  },
  options: BenchOptions,
): Promise<LoadResult> {
  const method = target.method ?? 'GET';
  const base = {
    url: target.url,
    method,
    headers: target.headers,
    body: target.body,
    connections: options.connections,
    ...(target.bodies ? { requests: target.bodies.map((body) => ({ method, body })), idReplacement: true } : {}),
  };
  const warmup = options.warmup > 0 ? await autocannon({ ...base, duration: options.warmup }) : null;
  const pid = target.server?.child.pid;
  const [cpuBefore, mainBefore] = [cpuSeconds(pid), cpuSeconds(pid, true)];
  const result = await autocannon({ ...base, duration: options.duration });
  const [cpuAfter, mainAfter] = [cpuSeconds(pid), cpuSeconds(pid, true)];
  const perRequest = (before: number | null, after: number | null) =>
    before !== null && after !== null && result.requests.total > 0
      ? ((after - before) * 1e6) / result.requests.total
      : null;
  const outcome: LoadResult = {
    label,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    errors: result.errors,
    non2xx: result.non2xx,
    serverCpuUs: perRequest(cpuBefore, cpuAfter),
    serverMainCpuUs: perRequest(mainBefore, mainAfter),
    succeeded: result['2xx'] + (warmup?.['2xx'] ?? 0),
  };
  if (outcome.errors > 0 || outcome.non2xx > 0 || outcome.total === 0) {
    throw new Error(
      `${label}: ${outcome.total} requests, ${outcome.non2xx} non-2xx, ${outcome.errors} errors; the figures would be meaningless`,
    );
  }
  return outcome;
}

export function printResults(title: string, results: LoadResult[]): void {
  const width = Math.max(...results.map((r) => r.label.length), 6);
  const lines = [
    title,
    // Figures from a busy machine swing widely; the server CPU per request swings less.
    `machine: ${availableParallelism()} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} (1, 5, 15 min)`,
    `${'target'.padEnd(width)}  ${'req/s'.padStart(9)}  ${'p50 ms'.padStart(7)}  ${'p99 ms'.padStart(7)}  ${'requests'.padStart(9)}  ${'server CPU µs/req'.padStart(17)}`,
    ...results.map(
      (r) =>
        `${r.label.padEnd(width)}  ${r.requestsPerSecond.toFixed(0).padStart(9)}  ${String(r.p50).padStart(7)}  ${String(r.p99).padStart(7)}  ${String(r.total).padStart(9)}  ${(r.serverCpuUs === null ? '-' : r.serverCpuUs.toFixed(0)).padStart(17)}`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Runs `body` with cleanups registered through `onExit`, also on Ctrl-C; sets the exit code on failure. */
export async function runBench(body: (onExit: (cleanup: () => Promise<void>) => void) => Promise<void>): Promise<void> {
  const cleanups: (() => Promise<void>)[] = [];
  const cleanUp = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup().catch((error: unknown) => process.stderr.write(`cleanup failed: ${String(error)}\n`));
    }
  };
  process.once('SIGINT', () => void cleanUp().then(() => process.exit(130)));
  try {
    await body((cleanup) => cleanups.push(cleanup));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  } finally {
    await cleanUp();
  }
}
