// Event stream fan-out: 2,000 WebSocket clients of one organization on one server process; events
// are caused one after another through the API (PATCH a cell → cell.updated), and each is timed
// from sending the PATCH to its arrival at every client (so the figure includes the request, the
// commit and the wake of the shared reader, not only the fan-out). Also reports the server's RSS:
// before the clients connect, with them connected and after the events.
// Then a burst phase: rounds of 10 PATCHes sent at once, where the shared reader reads several
// events per batch; every client must see them in the same (commit) order.
// Targets: every client gets every event, in order, once; p99 <= 250 ms.
//   node bench/stream-fanout.ts [--postgres] [--clients 2000] [--events 50] [--bursts 10]
import { readFileSync } from 'node:fs';
import { WebSocket } from 'ws';
import { benchOptions, runBench, signUpVerified, startService } from './lib.ts';
import { machineLoad, percentile, request } from './support/cells.ts';

const TARGET_P99_MS = 250;
const WARMUP_EVENTS = 5;
const CONNECT_BATCH = 200;
const EVENT_TIMEOUT_MS = 10_000;

// --clients and --events are this benchmark's own flags; the rest are bench/lib.ts's common flags.
const argv = process.argv.slice(2);
function ownFlag(name: string, fallback: number): number {
  const at = argv.indexOf(name);
  const value = at >= 0 ? Number(argv.splice(at, 2)[1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}
const clientCount = ownFlag('--clients', 2000);
const eventCount = ownFlag('--events', 50);
const burstRounds = ownFlag('--bursts', 10);
const BURST = 10;
const options = benchOptions(argv);

/** Resident set size of a process in MiB (Linux /proc). */
function rssMiB(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (!kb) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) / 1024;
}

interface Client {
  socket: WebSocket;
  /** Index of the next event this client should see; anything else is a gap, a duplicate or out of order. */
  next: number;
  errors: number;
  /** Burst event indexes in arrival order. */
  burstOrder: number[];
}

await runBench(async (onExit) => {
  const service = await startService({ postgres: options.postgres, profile: options.profile });
  onExit(() => service.stop());
  const pid = service.child.pid!;
  const org = await signUpVerified(service);
  const auth = { authorization: `Bearer ${org.apiKey}` };
  const cell = await request(`${service.url}/v1/cells`, {
    method: 'POST',
    headers: auth,
    body: { display_name: 'fanout' },
    expect: 201,
  });
  const streamUrl = `${service.url.replace('http:', 'ws:')}/v1/events/stream?types=cell.updated`;

  // Per event: when its PATCH was sent, and every client's arrival delay.
  const sentAt: number[] = [];
  const delays: number[][] = [];
  const arrivals: number[] = [];
  let waiting: { index: number; done: () => void } | null = null;
  // The burst phase: per burst event, when its round started and every client's delay.
  const burstSentAt: number[] = [];
  const burstDelays: number[] = [];
  const burstArrivals: number[] = [];
  let burstWaiting: { indexes: number[]; done: () => void } | null = null;
  const clients: Client[] = [];
  onExit(async () => clients.forEach((c) => c.socket.terminate()));

  const rssIdle = rssMiB(pid);
  const connectStarted = performance.now();
  for (let i = 0; i < clientCount; i += CONNECT_BATCH) {
    await Promise.all(
      Array.from(
        { length: Math.min(CONNECT_BATCH, clientCount - i) },
        () =>
          new Promise<void>((ready, failed) => {
            const client: Client = {
              socket: new WebSocket(streamUrl, { headers: auth }),
              next: 0,
              errors: 0,
              burstOrder: [],
            };
            clients.push(client);
            client.socket.on('error', failed);
            client.socket.on('close', (code, reason) =>
              failed(new Error(`a client was closed: ${code} ${String(reason)}`)),
            );
            client.socket.on('message', (data) => {
              const now = performance.now();
              const frame = JSON.parse(String(data)) as { type: string; event?: { data: { display_name: string } } };
              if (frame.type === 'ready') return ready();
              const name = frame.event!.data.display_name;
              if (name.startsWith('burst ')) {
                const index = Number(name.slice('burst '.length));
                client.burstOrder.push(index);
                burstDelays.push(now - burstSentAt[index]);
                burstArrivals[index] = (burstArrivals[index] ?? 0) + 1;
                if (burstWaiting && burstWaiting.indexes.every((i) => burstArrivals[i] === clientCount))
                  burstWaiting.done();
                return;
              }
              const index = Number(name.slice('fanout '.length));
              if (index !== client.next) client.errors += 1;
              client.next = index + 1;
              (delays[index] ??= []).push(now - sentAt[index]);
              arrivals[index] = (arrivals[index] ?? 0) + 1;
              if (waiting?.index === index && arrivals[index] === clientCount) waiting.done();
            });
          }),
      ),
    );
  }
  const connectMs = performance.now() - connectStarted;
  const rssConnected = rssMiB(pid);

  for (let index = 0; index < WARMUP_EVENTS + eventCount; index += 1) {
    const allArrived = new Promise<void>((done) => (waiting = { index, done }));
    sentAt[index] = performance.now();
    await request(`${service.url}/v1/cells/${String(cell.id)}`, {
      method: 'PATCH',
      headers: auth,
      body: { display_name: `fanout ${index}` },
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      allArrived,
      new Promise<never>(
        (_, reject) =>
          (timer = setTimeout(
            () =>
              reject(
                new Error(
                  `event ${index} reached ${arrivals[index] ?? 0} of ${clientCount} clients within ${EVENT_TIMEOUT_MS} ms`,
                ),
              ),
            EVENT_TIMEOUT_MS,
          )),
      ),
    ]);
    clearTimeout(timer);
  }

  for (let round = 0; round < burstRounds; round += 1) {
    const indexes = Array.from({ length: BURST }, (_, j) => round * BURST + j);
    const allArrived = new Promise<void>((done) => (burstWaiting = { indexes, done }));
    const started = performance.now();
    for (const index of indexes) burstSentAt[index] = started;
    await Promise.all(
      indexes.map((index) =>
        request(`${service.url}/v1/cells/${String(cell.id)}`, {
          method: 'PATCH',
          headers: auth,
          body: { display_name: `burst ${index}` },
        }),
      ),
    );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      allArrived,
      new Promise<never>(
        (_, reject) =>
          (timer = setTimeout(
            () => reject(new Error(`burst round ${round} did not reach every client within ${EVENT_TIMEOUT_MS} ms`)),
            EVENT_TIMEOUT_MS,
          )),
      ),
    ]);
    clearTimeout(timer);
  }
  const rssAfter = rssMiB(pid);
  const commitOrder = clients[0].burstOrder.join(',');
  const burstAgree = clients.every(
    (c) => c.burstOrder.length === burstRounds * BURST && c.burstOrder.join(',') === commitOrder,
  );

  const measured = delays.slice(WARMUP_EVENTS);
  const all = measured.flat();
  const slowest = measured.map((perEvent) => percentile(perEvent, 100));
  const errors = clients.reduce((sum, c) => sum + c.errors, 0);
  const complete = clients.every((c) => c.next === WARMUP_EVENTS + eventCount);
  const p99 = percentile(all, 99);
  const row = (label: string, samples: number[]) =>
    `${label.padEnd(36)} p50 ${percentile(samples, 50).toFixed(1).padStart(6)} ms  p99 ${percentile(samples, 99).toFixed(1).padStart(6)} ms  max ${percentile(samples, 100).toFixed(1).padStart(6)} ms`;
  process.stdout.write(
    [
      `event stream fan-out on ${service.database}: ${clientCount} clients (connected in ${(connectMs / 1000).toFixed(1)} s), ${eventCount} sequential events after ${WARMUP_EVENTS} warm-up`,
      row('PATCH sent → event at a client', all),
      row('PATCH sent → event at the last client', slowest),
      `delivery: ${complete && errors === 0 ? 'every client got every event once, in order' : `INCOMPLETE (${errors} out-of-order/duplicate, complete: ${complete})`}`,
      ...(burstRounds > 0
        ? [
            row(`bursts of ${BURST} (${burstRounds} rounds) → at a client`, burstDelays),
            `bursts: ${burstAgree ? 'every client got every event once, all in the same order' : 'CLIENTS DISAGREE on the events or their order'}`,
          ]
        : []),
      `server RSS: ${rssIdle.toFixed(0)} MiB idle, ${rssConnected.toFixed(0)} MiB with ${clientCount} clients (+${(((rssConnected - rssIdle) * 1024) / clientCount).toFixed(1)} KiB per client), ${rssAfter.toFixed(0)} MiB after the events (+${(rssAfter - rssConnected).toFixed(1)} MiB)`,
      `p99 ${p99.toFixed(1)} ms (target <= ${TARGET_P99_MS}) ${p99 <= TARGET_P99_MS && complete && errors === 0 && (burstRounds === 0 || burstAgree) ? 'MET' : 'NOT MET'}`,
      machineLoad(),
    ].join('\n') + '\n',
  );
  for (const client of clients) client.socket.removeAllListeners('close');
});
