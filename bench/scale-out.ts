// Scale-out, shown (issue 25 §4, contract §9): three `cellgate serve` processes on one scratch
// PostgreSQL database behind HAProxy started with the repository's deploy/haproxy.cfg (its server
// lines filled in), then
//   1. accepted sends per second through HAProxy with 1, 2 and 3 processes in rotation
//      (autocannon, like bench/send-throughput.ts; no device claims these messages);
//   2. failover: simulated phones long-polling through HAProxy (src/cli/device-simulator.ts),
//      event-stream clients attached through HAProxy (`types=message.*`, resuming with `since=`
//      when dropped), a sustained send load, and `kill -9` of the busiest process mid-load.
// Invariants (exit status 1 when one fails):
//   - 0 accepted messages lost: every send answered 2xx is in the database and handed to a phone
//     by a claim; the bench waits for each to end `delivered` (a claim whose answer died with the
//     process is re-queued when its 120 s lease runs out, so this can take two minutes after the
//     kill) and prints any that did not (a phone whose reports never got through);
//   - every stream client dropped by the kill is back (its `ready` on another process) within 5 s,
//     and every client saw exactly the organization's message events, in order, each once;
//   - no claim doubled: no message was handed to phones by two claim answers within one lease.
// Clients retry a send that got no answer or a 5xx with the same Idempotency-Key, as SDKs do.
// The phones send at most 30 segments a minute each (contract §11), so the sustained load is
// sized to what the simulated rack can carry (--rate <= phones / 2).
//   node bench/scale-out.ts [--devices 24] [--clients 30] [--rate 10] [--load-seconds 30] [--kill-after 10]
//                           [--duration 10] [--connections 50] [--warmup 2]
// Needs haproxy (Debian: apt-get install haproxy) and PostgreSQL (CELLGATE_BENCH_POSTGRES_URL, default
// postgres://postgres@127.0.0.1:5432/postgres: a database is created there and dropped afterwards).
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { spawnSync } from 'node:child_process';
import { WebSocket } from 'ws';
import pg from 'pg';
import {
  benchOptions,
  freePort,
  load,
  ROOT,
  runBench,
  serviceEnv,
  serviceReadyLine,
  signUpVerified,
  startChild,
  type ChildServer,
  type LoadResult,
  type Service,
} from './lib.ts';
import { distinctNumbers, machineLoad, percentile, provisionCell, type BenchCell } from './support/cells.ts';
import { cpuSeconds } from './support/pods.ts';
import { findHaproxy, startHaproxy, type Backend, type Balancer } from './support/haproxy.ts';
import { startSimulatedDevice, type SimulatedDevice } from '../src/cli/device-simulator.ts';

const PROCESSES = 3;
const RECONNECT_WITHIN_MS = 5_000;
const LEASE_MS = 120_000;
const SEND_RATE_PER_MINUTE = 30;

// This benchmark's own flags; the rest are bench/lib.ts's common flags (--postgres is implied).
const argv = process.argv.slice(2);
function ownFlag(name: string, fallback: number): number {
  const at = argv.indexOf(name);
  const value = at >= 0 ? Number(argv.splice(at, 2)[1]) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
}
const deviceCount = Math.floor(ownFlag('--devices', 24));
const clientCount = Math.floor(ownFlag('--clients', 30));
const sendRate = ownFlag('--rate', 10);
const loadSeconds = ownFlag('--load-seconds', 30);
const killAfterSeconds = ownFlag('--kill-after', 10);
const options = benchOptions(argv);
if (killAfterSeconds >= loadSeconds) throw new Error('--kill-after must be shorter than --load-seconds');
// Each phone may be handed 30 segments a minute: more load than that would wait in the queue, not fail over.
if ((sendRate * Math.min(loadSeconds, 60)) / deviceCount > SEND_RATE_PER_MINUTE * 0.8)
  throw new Error(`--rate ${sendRate} is more than ${deviceCount} phones at ${SEND_RATE_PER_MINUTE}/min carry`);

const ADMIN_POSTGRES_URL = process.env.CELLGATE_BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));
const out = (line = '') => process.stdout.write(`${line}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function withClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

interface StreamClient {
  index: number;
  socket: WebSocket | null;
  ids: string[];
  seen: Set<string>;
  duplicates: number;
  connections: number;
  /** Closes not asked for: when, with which code. */
  drops: { at: number; code: number }[];
  /** When each connection after the first was ready. */
  resumedAt: number[];
}

await runBench(async (onExit) => {
  const haproxy = findHaproxy();
  if (!haproxy) throw new Error('haproxy is not installed (Debian: apt-get install haproxy)');

  // A scratch database, migrated once, shared by the processes.
  const name = `cellgate_scale_${process.pid}_${Date.now()}`;
  await withClient(ADMIN_POSTGRES_URL, (c) => c.query(`CREATE DATABASE ${name}`));
  onExit(async () => {
    await withClient(ADMIN_POSTGRES_URL, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  });
  const scratch = new URL(ADMIN_POSTGRES_URL);
  scratch.pathname = `/${name}`;
  const databaseUrl = scratch.toString();
  const migrated = spawnSync(process.execPath, ['--no-warnings', 'src/entry.mjs', 'migrate'], {
    cwd: ROOT,
    env: { ...process.env, CELLGATE_DATABASE_URL: databaseUrl, CELLGATE_LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
  if (migrated.status !== 0) throw new Error(`cellgate migrate failed:\n${migrated.stdout}${migrated.stderr}`);

  const adminToken = `cg_adm_${randomBytes(16).toString('hex')}`;
  const processes: ChildServer[] = await Promise.all(
    Array.from({ length: PROCESSES }, async () => {
      const port = await freePort();
      return startChild({
        args: ['--no-warnings', 'src/entry.mjs', 'serve'],
        nodeFlags: ['--max-semi-space-size=16'],
        port,
        readyPath: '/health',
        readyLine: serviceReadyLine(port),
        // Billing on, as in production; the pro tier includes every phone of the simulated rack.
        env: {
          ...serviceEnv({ databaseUrl, port, adminToken }),
          CELLGATE_PRICES: JSON.stringify({ tiers: { pro: { usd: '100.00', cells: 10_000 } } }),
        },
      });
    }),
  );
  for (const child of processes) onExit(() => child.stop());
  const backends: Backend[] = processes.map((p, i) => ({ name: `cellgate-${i + 1}`, address: new URL(p.url).host }));

  out(`scale-out: ${PROCESSES} processes on PostgreSQL (${name}) behind HAProxy (deploy/haproxy.cfg)`);
  out(machineLoad());

  // ---- 1. Accepted sends per second with 1, 2 and 3 processes in rotation.
  const throughput: { n: number; result: LoadResult; serverCpuUs: number; haproxyCpuUs: number; load1: number }[] = [];
  {
    const setup = await startHaproxy(haproxy, backends);
    const front = frontOf(setup, adminToken, processes[0]);
    const org = await signUpVerified(front);
    const cell = await provisionCell(front, org, { sendRatePerMinute: SEND_RATE_PER_MINUTE });
    await setup.stop();
    const bodies = distinctNumbers(1_000).map((to) =>
      JSON.stringify({ to, body: 'Scale-out benchmark: hello from Cellgate.' }),
    );
    for (let n = 1; n <= PROCESSES; n++) {
      const lb = await startHaproxy(haproxy, backends.slice(0, n));
      try {
        // Every process, in rotation or not: each hears every notification of the shared database.
        const pids = processes.map((p) => p.child.pid!);
        const cpu = () => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
        const serverBefore = cpu();
        const haproxyBefore = cpuSeconds(lb.child.pid!);
        const result = await load(
          `${n} process${n > 1 ? 'es' : ''}`,
          {
            url: `${lb.url}/v1/cells/${cell.cellId}/messages/send`,
            method: 'POST',
            headers: {
              authorization: `Bearer ${org.apiKey}`,
              'content-type': 'application/json',
              'idempotency-key': `scale-${n}-[<id>]`,
            },
            bodies,
          },
          options,
        );
        throughput.push({
          n,
          result,
          serverCpuUs: ((cpu() - serverBefore) * 1e6) / result.succeeded,
          haproxyCpuUs: ((cpuSeconds(lb.child.pid!) - haproxyBefore) * 1e6) / result.succeeded,
          load1: loadavg()[0],
        });
      } finally {
        await lb.stop();
      }
    }
  }

  // ---- 2. Failover under load.
  const lb = await startHaproxy(haproxy, backends);
  onExit(() => lb.stop());
  const front = frontOf(lb, adminToken, processes[0]);
  const org = await signUpVerified(front);
  const auth = { authorization: `Bearer ${org.apiKey}` };
  const cells: BenchCell[] = [];
  for (let i = 0; i < deviceCount; i++)
    cells.push(await provisionCell(front, org, { sendRatePerMinute: SEND_RATE_PER_MINUTE }));

  // Phones, long-polling through HAProxy; every claim answer they get is counted.
  // Per message, each claim answer a phone got: when, and until when the lease ran.
  const claims = new Map<string, { at: number; leaseUntil: number }[]>();
  const devices: SimulatedDevice[] = [];
  onExit(async () => {
    await Promise.all(devices.map((d) => d.stop()));
  });
  for (const cell of cells) {
    devices.push(
      await startSimulatedDevice({
        baseUrl: lb.url,
        key: cell.deviceKey,
        deliveryDelayMs: 200,
        pollWaitSeconds: 25,
        logger: () => {},
        onClaim: (message) => {
          const lease = message.lease_expires_at ? Date.parse(message.lease_expires_at) : Infinity;
          claims.set(message.id, [...(claims.get(message.id) ?? []), { at: Date.now(), leaseUntil: lease }]);
        },
      }),
    );
  }

  // Event-stream clients through HAProxy; a dropped one reconnects at once with since=<last id>.
  const wsBase = `${lb.url.replace('http:', 'ws:')}/v1/events/stream?types=message.*`;
  let stopping = false;
  const clients: StreamClient[] = [];
  onExit(async () => {
    stopping = true;
    clients.forEach((c) => c.socket?.terminate());
  });
  const connect = (client: StreamClient): Promise<void> =>
    new Promise((ready) => {
      const last = client.ids.at(-1);
      const socket = new WebSocket(last ? `${wsBase}&since=${last}` : wsBase, { headers: auth });
      client.socket = socket;
      let isReady = false;
      let retried = false;
      const again = (code: number) => {
        if (stopping || retried) return;
        retried = true;
        if (isReady) client.drops.push({ at: performance.now(), code });
        // A refused attempt (the balancer had not yet noticed the dead process) is retried soon.
        setTimeout(() => void connect(client).then(ready), isReady ? 0 : 100);
      };
      socket.on('message', (data) => {
        const frame = JSON.parse(String(data)) as { type: string; event?: { id: string } };
        if (frame.type === 'ready') {
          isReady = true;
          client.connections += 1;
          if (client.connections > 1) client.resumedAt.push(performance.now());
          ready();
        } else if (frame.type === 'event' && frame.event) {
          if (client.seen.has(frame.event.id)) client.duplicates += 1;
          else client.seen.add(frame.event.id);
          client.ids.push(frame.event.id);
        }
      });
      socket.on('error', () => again(-1));
      socket.on('close', (code) => again(code));
    });
  for (let i = 0; i < clientCount; i++) {
    const client: StreamClient = {
      index: i,
      socket: null,
      ids: [],
      seen: new Set(),
      duplicates: 0,
      connections: 0,
      drops: [],
      resumedAt: [],
    };
    clients.push(client);
    await connect(client);
  }

  // Sends: each with its own Idempotency-Key, retried with it after a network error, a 5xx or a
  // key still in progress; any other answer is final.
  const recipients = distinctNumbers(500);
  const accepted = new Map<string, number>();
  const refused: string[] = [];
  let sendRetries = 0;
  /** Why sends were retried: the status answered, or `network` when none came. */
  const retryReasons: Record<string, number> = {};
  /** The first answer of each retried status, to tell the balancer's from a process's. */
  const retrySamples: Record<string, string> = {};
  const runId = randomBytes(4).toString('hex');
  async function send(i: number): Promise<void> {
    const cell = cells[i % cells.length];
    const key = `scale-${runId}-${i}`;
    for (let attempt = 0; attempt < 40; attempt++) {
      if (attempt > 0) {
        sendRetries += 1;
        await sleep(250);
      }
      let status = 0;
      let text = '';
      try {
        const response = await fetch(`${lb.url}/v1/cells/${cell.cellId}/messages/send`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': key },
          body: JSON.stringify({ to: recipients[i % recipients.length], body: `Scale-out message ${i}.` }),
          signal: AbortSignal.timeout(30_000),
        });
        status = response.status;
        text = await response.text();
      } catch {
        retryReasons.network = (retryReasons.network ?? 0) + 1;
        continue;
      }
      if (status >= 200 && status < 300) {
        const id = String((JSON.parse(text) as { id: string }).id);
        if (!accepted.has(id)) accepted.set(id, i);
        return;
      }
      if (status >= 500 || status === 429 || text.includes('idempotency_request_in_progress')) {
        retryReasons[status] = (retryReasons[status] ?? 0) + 1;
        retrySamples[status] ??= text.slice(0, 160);
        continue;
      }
      refused.push(`${status} ${text.slice(0, 200)}`);
      return;
    }
    refused.push(`no answer after 40 attempts (send ${i})`);
  }

  // Warm-up: one message, so that every client has an event id to resume from.
  await send(1_000_000);
  await waitFor(() => clients.every((c) => c.ids.length > 0), 30_000, 'every stream client saw the warm-up message');

  out();
  out(
    `failover: ${deviceCount} phones long-polling, ${clientCount} stream clients, ${sendRate} sends/s for ${loadSeconds} s, kill -9 after ${killAfterSeconds} s`,
  );
  const started = performance.now();
  const total = Math.round(sendRate * loadSeconds);
  const pending: Promise<void>[] = [];
  let killedAt = 0;
  let victim = -1;
  let markedDownAfter: number | null = null;
  // Every change of a server's state as HAProxy reports it (a live process marked down is an outage).
  const transitions: { at: number; name: string; status: string }[] = [];
  const watching = (async () => {
    const last = new Map<string, string>();
    while (!stopping) {
      for (const state of await lb.servers().catch(() => [])) {
        const status = state.status.split(' ')[0];
        if ((last.get(state.name) ?? 'UP') !== status)
          transitions.push({ at: performance.now(), name: state.name, status });
        last.set(state.name, status);
      }
      await sleep(200);
    }
  })();
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / sendRate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    if (!killedAt && performance.now() - started >= killAfterSeconds * 1000) {
      // The busiest process: most sessions (streams and long-polls) go down with it.
      const states = await lb.servers();
      const busiest = states.reduce((a, b) => (b.sessions > a.sessions ? b : a));
      victim = backends.findIndex((b) => b.name === busiest.name);
      processes[victim].child.kill('SIGKILL');
      killedAt = performance.now();
      out(`  kill -9 ${busiest.name} (pid ${processes[victim].child.pid}, ${busiest.sessions} sessions)`);
      void (async () => {
        while (markedDownAfter === null && !stopping) {
          const state = (await lb.servers().catch(() => [])).find((s) => s.name === busiest.name);
          if (state?.status.startsWith('DOWN')) markedDownAfter = performance.now() - killedAt;
          else await sleep(100);
        }
      })();
    }
    pending.push(send(i));
  }
  await Promise.all(pending);
  const loadMs = performance.now() - started;
  const sendsPerSecond = accepted.size / (loadMs / 1000);

  // Every accepted message delivered: a claim lost with the process waits for its lease (120 s).
  const ids = [...accepted.keys()];
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  onExit(() => db.end());
  const statuses = async () => {
    const { rows } = await db.query<{ status: string; count: string }>(
      'SELECT status, count(*) AS count FROM messages WHERE id = ANY($1) GROUP BY status',
      [ids],
    );
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.count)])) as Record<string, number>;
  };
  const drainDeadline = Math.max(performance.now() + 30_000, killedAt + LEASE_MS + 30_000);
  let lastNote = 0;
  let byStatus = await statuses();
  while ((byStatus.delivered ?? 0) < ids.length && performance.now() < drainDeadline) {
    if (performance.now() - lastNote > 10_000) {
      lastNote = performance.now();
      out(
        `  waiting for delivery: ${JSON.stringify(byStatus)} of ${ids.length} (a claim answered by the killed process is re-queued when its lease runs out, 120 s after the claim)`,
      );
    }
    await sleep(1000);
    byStatus = await statuses();
  }

  // Every stream client: exactly the organization's message events, in commit (seq) order.
  const expectedIds = async () =>
    (
      await db.query<{ id: string }>(
        `SELECT id FROM events WHERE organization_id = $1 AND type LIKE 'message.%' ORDER BY seq`,
        [org.organizationId],
      )
    ).rows.map((r) => r.id);
  let expected = await expectedIds();
  await waitFor(() => clients.every((c) => c.ids.length >= expected.length), 15_000, 'stream clients caught up').catch(
    () => {},
  );
  expected = await expectedIds();
  stopping = true;
  await watching;
  await Promise.all(devices.map((d) => d.stop()));
  clients.forEach((c) => c.socket?.terminate());

  // ---- Figures and invariants.
  const failures: string[] = [];
  const { rows: found } = await db.query<{ id: string; attempts: number }>(
    'SELECT id, attempts FROM messages WHERE id = ANY($1)',
    [ids],
  );
  const lost = ids.length - found.length;
  const undelivered = ids.length - (byStatus.delivered ?? 0);
  const reclaimed = found.filter((r) => r.attempts > 1).length;
  // Doubled: handed out again while an earlier claim's lease still ran (two holders at once).
  // A claim after the lease ran out is the protocol's recovery from a phone that never reported.
  const doubled = ids.filter((id) =>
    (claims.get(id) ?? []).some((claim, i, all) => i > 0 && claim.at < all[i - 1].leaseUntil),
  );
  const claimedAgain = ids.filter((id) => (claims.get(id) ?? []).length > 1).length - doubled.length;
  const neverClaimed = ids.filter((id) => !claims.has(id));

  const dropped = clients.filter((c) => c.drops.some((d) => d.at >= killedAt));
  const backWithin = dropped.map((c) => (c.resumedAt.find((at) => at >= killedAt) ?? Infinity) - killedAt);
  // When each client noticed the drop (HAProxy closing its side once the process's side died).
  const droppedAfter = dropped.map((c) => c.drops.find((d) => d.at >= killedAt)!.at - killedAt);
  const gaps = clients.map((c) => {
    const missing = expected.filter((id) => !c.seen.has(id)).length;
    const extra = c.ids.filter((id) => !expected.includes(id)).length;
    const inOrder = c.duplicates === 0 && missing === 0 && c.ids.every((id, i) => id === expected[i]);
    return { client: c.index, missing, extra, duplicates: c.duplicates, inOrder };
  });

  out();
  out(machineLoad());
  out('accepted sends/s through HAProxy (POST .../messages/send, 202; no phone claims them):');
  out(
    `  ${'processes'.padEnd(10)} ${'sends/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'sends'.padStart(7)} ${'CPU µs/send, all processes'.padStart(26)} ${'haproxy CPU µs/send'.padStart(20)} ${'load 1 min'.padStart(10)}`,
  );
  for (const t of throughput) {
    out(
      `  ${String(t.n).padEnd(10)} ${t.result.requestsPerSecond.toFixed(0).padStart(8)} ${String(t.result.p50).padStart(7)} ${String(t.result.p99).padStart(7)} ${String(t.result.total).padStart(7)} ${t.serverCpuUs.toFixed(0).padStart(26)} ${t.haproxyCpuUs.toFixed(0).padStart(20)} ${t.load1.toFixed(1).padStart(10)}`,
    );
  }
  out(
    `  (${options.duration} s each after ${options.warmup} s warm-up, ${options.connections} connections, all ${PROCESSES} processes running;`,
  );
  out(`   with fewer free cores than processes sends/s cannot grow: the CPU per send shows the cost)`);
  out('failover (kill -9 mid-load):');
  out(
    `  sends: ${accepted.size} accepted (${sendsPerSecond.toFixed(1)}/s), ${sendRetries} retried with their key ${JSON.stringify(retryReasons)}, ${refused.length} refused`,
  );
  for (const [status, sample] of Object.entries(retrySamples))
    out(`    first ${status}: ${sample.replace(/\s+/g, ' ')}`);
  out(
    `  HAProxy marked the killed process down after ${markedDownAfter === null ? 'never' : seconds(markedDownAfter)}`,
  );
  const livesDown = transitions.filter((t) => t.name !== backends[victim]?.name && t.status !== 'UP');
  out(
    `  server state changes: ${transitions.map((t) => `${t.name} ${t.status} at ${((t.at - killedAt) / 1000).toFixed(1)} s`).join(', ') || 'none'} (from the kill)`,
  );
  out(
    `  accepted messages lost: ${lost}; not delivered: ${undelivered} (${JSON.stringify(byStatus)}); re-queued after an expired lease: ${reclaimed}`,
  );
  out(
    `  claims: ${claims.size} messages claimed, doubled (a second holder within the lease): ${doubled.length}, claimed again after the lease ran out: ${claimedAgain}, accepted but never handed to a phone: ${neverClaimed.length}`,
  );
  out(
    `  stream clients: ${clientCount}, dropped by the kill: ${dropped.length}, back on another process within: ` +
      (backWithin.length
        ? `max ${seconds(Math.max(...backWithin))}, p50 ${seconds(percentile(backWithin, 50))} (dropped after p50 ${seconds(percentile(droppedAfter, 50))}, max ${seconds(Math.max(...droppedAfter))})`
        : 'n/a') +
      `; events each should see: ${expected.length}; clients with a gap, duplicate or out of order: ${gaps.filter((g) => !g.inOrder).length}`,
  );

  if (lost > 0) failures.push(`${lost} accepted messages are not in the database`);
  if (neverClaimed.length > 0)
    failures.push(`${neverClaimed.length} accepted messages were never handed to a phone: ${JSON.stringify(byStatus)}`);
  if (doubled.length > 0)
    failures.push(`${doubled.length} messages had two holders within one lease, e.g. ${doubled[0]}`);
  // Not invariants, but said: a claimed message whose phone's reports did not get through (the
  // simulator gives a report 8 attempts, about 18 s), and live processes the balancer took out.
  if (undelivered > 0)
    out(`NOTE: ${undelivered} claimed messages did not reach delivered: ${JSON.stringify(byStatus)}`);
  if (livesDown.length > 0)
    out(
      `WARNING: HAProxy took live processes out of rotation (failed health checks: overloaded?): ${livesDown.map((t) => `${t.name} ${t.status}`).join(', ')}`,
    );
  if (dropped.length === 0) failures.push('no stream client was on the killed process: the kill proved nothing');
  const slow = backWithin.filter((ms) => ms > RECONNECT_WITHIN_MS);
  if (slow.length > 0) failures.push(`${slow.length} stream clients were not back within 5 s (or never)`);
  for (const g of gaps.filter((g) => !g.inOrder))
    failures.push(
      `stream client ${g.client}: ${g.missing} events missing, ${g.duplicates} duplicates, ${g.extra} unexpected, or out of order`,
    );
  if (refused.length > 0) failures.push(`${refused.length} sends refused, e.g. ${refused[0]}`);
  if (failures.length > 0) throw new Error(`INVARIANTS FAILED:\n  ${failures.join('\n  ')}`);
  out('invariants: all held');
});

/** The balancer as a Service for the fixture helpers (sign-up, cells): requests go through HAProxy. */
function frontOf(balancer: Balancer, adminToken: string, server: ChildServer): Service {
  return { url: balancer.url, child: server.child, adminToken, database: 'PostgreSQL', stop: async () => {} };
}

async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(50);
  }
}
