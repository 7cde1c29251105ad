// End-to-end latency of one text: POST .../messages/send → the simulated phone claims it (long poll)
// → reports sent and delivered → GET .../messages/{id} reads `delivered`. Messages go one after
// another (~500), so each figure is the latency of an idle system, not of a queue.
// Targets (issue 24 §5): p50 <= 5 ms, p99 <= 20 ms.
//   node bench/e2e-latency.ts [--postgres] [--messages 500] [--profile dir]
import { randomUUID } from 'node:crypto';
import { startSimulatedDevice } from '../src/cli/device-simulator.ts';
import { benchOptions, cpuSeconds, runBench, serverTimes, signUpVerified, startService } from './lib.ts';
import { benchPhoneNumber, machineLoad, percentile, provisionCell, request } from './support/cells.ts';

const TARGET_P50_MS = 5;
const TARGET_P99_MS = 20;
const WARMUP_MESSAGES = 20;

// --messages is this benchmark's own flag; the rest are bench/lib.ts's common flags.
const argv = process.argv.slice(2);
const at = argv.indexOf('--messages');
const count = at >= 0 ? Number(argv.splice(at, 2)[1]) : 500;
// A phone is handed at most 30 SMS segments a minute (the highest send_rate_per_minute): the
// probes rotate over enough phones that none is paced (pacing is not what this measures).
const MAX_RATE = 30;
const MAX_MESSAGES = 2_000;
if (!Number.isInteger(count) || count < 1 || count > MAX_MESSAGES) {
  throw new Error(`--messages must be an integer from 1 to ${MAX_MESSAGES}`);
}
const PHONES = Math.ceil((count + WARMUP_MESSAGES) / MAX_RATE);
const options = benchOptions(argv);

await runBench(async (onExit) => {
  const service = await startService({ postgres: options.postgres, profile: options.profile });
  onExit(() => service.stop());
  const org = await signUpVerified(service);
  const cells = [];
  for (let i = 0; i < PHONES; i++) cells.push(await provisionCell(service, org, { sendRatePerMinute: MAX_RATE }));

  // What the phone did, by message id: the claim may even race the 202 reaching us.
  const claimedAt = new Map<string, number>();
  const delivered = new Set<string>();
  const waiters = new Map<string, () => void>();
  // Where the time goes: each step's own latency, recorded while measuring.
  let measuring = false;
  const steps = { send: [] as number[], sendToClaim: [] as number[], report: [] as number[], read: [] as number[] };
  const timedFetch: typeof fetch = async (input, init) => {
    const started = performance.now();
    const response = await fetch(input, init);
    await response.clone().arrayBuffer();
    if (measuring && String(input).endsWith('/events')) steps.report.push(performance.now() - started);
    return response;
  };
  const phones: Awaited<ReturnType<typeof startSimulatedDevice>>[] = [];
  for (const cell of cells)
    phones.push(
      await startSimulatedDevice({
        baseUrl: service.url,
        key: cell.deviceKey,
        fetch: timedFetch,
        deliveryDelayMs: 0,
        pollWaitSeconds: 30,
        logger: () => {},
        onClaim: (message) => claimedAt.set(message.id, performance.now()),
        onReport: (id, event) => {
          if (event !== 'delivered') return;
          delivered.add(id);
          waiters.get(id)?.();
        },
      }),
    );
  onExit(() => Promise.all(phones.map((phone) => phone.stop())).then(() => undefined));

  const auth = { authorization: `Bearer ${org.apiKey}` };
  const to = benchPhoneNumber();
  const total: number[] = [];
  const toClaim: number[] = [];
  let serverBefore = new Map<string, { count: number; seconds: number }>();
  let cpuBefore: number | null = null;
  for (let i = 0; i < WARMUP_MESSAGES + count; i += 1) {
    if (i === WARMUP_MESSAGES) {
      serverBefore = await serverTimes(service);
      cpuBefore = cpuSeconds(service.child.pid);
    }
    measuring = i >= WARMUP_MESSAGES;
    const cell = cells[i % cells.length];
    const started = performance.now();
    const sent = await request(`${service.url}/v1/cells/${cell.cellId}/messages/send`, {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': randomUUID() },
      body: { to, body: `latency probe ${i}` },
      expect: 202,
    });
    const id = String(sent.id);
    const accepted = performance.now();
    if (!delivered.has(id)) {
      await withTimeout(
        new Promise<void>((done) => waiters.set(id, done)),
        10_000,
        `message ${id} was not delivered within 10 s`,
      );
    }
    const reading = performance.now();
    const read = await request(`${service.url}/v1/cells/${cell.cellId}/messages/${id}`, { headers: auth });
    if (read.status !== 'delivered')
      throw new Error(`message ${id} reads ${String(read.status)} after the delivered report`);
    if (measuring) {
      const done = performance.now();
      total.push(done - started);
      toClaim.push((claimedAt.get(id) ?? Number.NaN) - started);
      steps.send.push(accepted - started);
      steps.sendToClaim.push((claimedAt.get(id) ?? Number.NaN) - accepted);
      steps.read.push(done - reading);
    }
    claimedAt.delete(id);
    delivered.delete(id);
    waiters.delete(id);
  }

  // The service's own time (request received → answer written) against what the client saw: the
  // rest is the network stack, the scheduling of both processes and the client.
  const cpuAfter = cpuSeconds(service.child.pid);
  const serverAfter = await serverTimes(service);
  const serverMean = (route: string) => {
    const after = serverAfter.get(route);
    const before = serverBefore.get(route) ?? { count: 0, seconds: 0 };
    const count = (after?.count ?? 0) - before.count;
    return count > 0 ? `${((((after?.seconds ?? 0) - before.seconds) * 1000) / count).toFixed(2)} ms` : '-';
  };
  const p50 = percentile(total, 50);
  const p99 = percentile(total, 99);
  const row = (label: string, samples: number[]) =>
    `${label.padEnd(36)} p50 ${percentile(samples, 50).toFixed(1).padStart(6)} ms  p99 ${percentile(samples, 99).toFixed(1).padStart(6)} ms  max ${Math.max(
      ...samples,
    )
      .toFixed(1)
      .padStart(6)} ms`;
  process.stdout.write(
    [
      `end-to-end latency on ${service.database}: ${count} sequential messages after ${WARMUP_MESSAGES} warm-up, over ${PHONES} phones (30 segments/min each)`,
      row('  POST .../messages/send (202)', steps.send),
      row('  202 → claim answered to the phone', steps.sendToClaim),
      row('  POST .../events (each report)', steps.report),
      row('  GET .../messages/{id}', steps.read),
      `  the service's own mean time: send ${serverMean('POST /v1/cells/:cell_id/messages/send')}, report ${serverMean(
        'POST /v1/device/messages/:message_id/events',
      )}, read ${serverMean('GET /v1/cells/:cell_id/messages/:message_id')}; CPU ${
        cpuBefore === null || cpuAfter === null ? '-' : `${(((cpuAfter - cpuBefore) * 1000) / count).toFixed(2)} ms`
      } a message`,
      row('send → claimed by the phone', toClaim),
      row('send → reads delivered', total),
      `p50 ${p50.toFixed(1)} ms (target <= ${TARGET_P50_MS}) ${p50 <= TARGET_P50_MS ? 'MET' : 'NOT MET'}; p99 ${p99.toFixed(1)} ms (target <= ${TARGET_P99_MS}) ${p99 <= TARGET_P99_MS ? 'MET' : 'NOT MET'}`,
    ].join('\n') + '\n',
  );
  process.stdout.write(`${machineLoad()}\n`);
});

async function withTimeout(promise: Promise<void>, ms: number, message: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      promise,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
