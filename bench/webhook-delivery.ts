// Issue 4: webhook delivery speed against a receiver on loopback, through the real service.
//   latency:    one endpoint; one event at a time (PATCH /v1/cells/{id} emits cell.updated);
//               event created_at -> request at the receiver. Target p50 <= 20 ms.
//   throughput: `--endpoints` endpoints take every event; events are made by `--connections`
//               concurrent PATCHes for `--duration` s; deliveries/s counted at the receiver over
//               the whole run, up to the last delivery. Target >= 1,000/s.
//   npm run bench:webhooks [-- --postgres] [--duration 10] [--connections 8] [--endpoints 100] [--events 300]
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { benchOptions, runBench, signUpVerified, startService, type Service } from './lib.ts';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { endpoints: { type: 'string', default: '100' }, events: { type: 'string', default: '300' } },
  strict: false,
});
const ENDPOINTS = Number(values.endpoints);
const LATENCY_EVENTS = Number(values.events);
const options = benchOptions(
  process.argv
    .slice(2)
    .filter(
      (arg, i, all) => !['--endpoints', '--events'].includes(arg) && !['--endpoints', '--events'].includes(all[i - 1]),
    ),
);
const TARGET_P50_MS = 20;
const TARGET_RATE = 1000;

type Listener = (envelope: { id: string; created_at: string }, arrivedAt: number, path: string) => void;

/** Receiver: answers 204 at once and reports each delivery with its arrival time. */
async function startReceiver(onDelivery: Listener) {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const arrivedAt = Date.now();
      res.writeHead(204).end();
      onDelivery(JSON.parse(Buffer.concat(chunks).toString('utf8')), arrivedAt, req.url ?? '');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function api(service: Service, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(service.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

await runBench(async (onExit) => {
  const service = await startService({
    postgres: options.postgres,
    env: { CELLGATE_WEBHOOKS_ALLOW_PRIVATE: 'true' },
    profile: options.profile,
  });
  onExit(() => service.stop());
  let onDelivery: Listener = () => {};
  const receiver = await startReceiver((envelope, at, path) => onDelivery(envelope, at, path));
  onExit(() => receiver.close());

  // Latency: one endpoint, one event in flight at a time.
  const first = await signUpVerified(service);
  await api(service, first.apiKey, 'POST', '/v1/webhooks', { client_id: 'latency', url: `${receiver.url}/latency` });
  const cell = await api(service, first.apiKey, 'POST', '/v1/cells', { display_name: 'bench' });
  const latencies: number[] = [];
  for (let i = 0; i < LATENCY_EVENTS; i++) {
    const arrived = new Promise<number>((resolve) => {
      onDelivery = (envelope, at) => resolve(at - Date.parse(envelope.created_at));
    });
    await api(service, first.apiKey, 'PATCH', `/v1/cells/${cell.id}`, { display_name: `bench ${i}` });
    latencies.push(await arrived);
  }
  latencies.sort((a, b) => a - b);
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);

  // Throughput: every event fans out to ENDPOINTS endpoints of a second organization.
  const second = await signUpVerified(service);
  // The cell first: its cell.created must not count.
  const busyCell = await api(service, second.apiKey, 'POST', '/v1/cells', { display_name: 'bench' });
  for (let i = 0; i < ENDPOINTS; i++) {
    await api(service, second.apiKey, 'POST', '/v1/webhooks', {
      client_id: `fan-${i}`,
      url: `${receiver.url}/fan/${i}`,
    });
  }
  let delivered = 0;
  let lastArrival = 0;
  const seen = new Set<string>();
  let duplicates = 0;
  onDelivery = (envelope, at, path) => {
    delivered += 1;
    lastArrival = at;
    const key = `${path} ${envelope.id}`;
    if (seen.has(key)) duplicates += 1;
    seen.add(key);
  };
  const started = Date.now();
  const until = started + options.duration * 1000;
  let events = 0;
  await Promise.all(
    Array.from({ length: options.connections }, async () => {
      while (Date.now() < until) {
        await api(service, second.apiKey, 'PATCH', `/v1/cells/${busyCell.id}`, { display_name: `busy ${events}` });
        events += 1;
      }
    }),
  );
  const expected = events * ENDPOINTS;
  const deadline = Date.now() + 120_000;
  while (delivered < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  const seconds = (lastArrival - started) / 1000;
  const rate = delivered / seconds;

  process.stdout.write(
    [
      `webhook delivery on ${service.database}, receiver on loopback`,
      `latency (event created -> receiver), ${latencies.length} events one at a time: p50 ${p50} ms, p99 ${p99} ms, max ${latencies.at(-1)} ms (target p50 <= ${TARGET_P50_MS}) ${p50 <= TARGET_P50_MS ? 'MET' : 'NOT MET'}`,
      `throughput: ${events} events x ${ENDPOINTS} endpoints = ${expected} deliveries expected, ${delivered} delivered in ${seconds.toFixed(2)} s (${options.connections} concurrent PATCHes for ${options.duration} s)`,
      `  ${rate.toFixed(0)} deliveries/s (target >= ${TARGET_RATE}) ${rate >= TARGET_RATE && delivered === expected ? 'MET' : 'NOT MET'}`,
    ].join('\n') + '\n',
  );
  if (duplicates > 0) throw new Error(`${duplicates} deliveries arrived twice`);
  if (delivered !== expected) throw new Error(`${expected - delivered} deliveries missing`);
});
