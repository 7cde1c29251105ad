// Issue 23 item 12: the first GET /openapi.yaml of a fresh process, and what it costs everyone
// else. The OpenAPI document is about 900 kB; building and serializing it on the request path
// stalled the event loop for seconds (long-polls and heartbeats with it). This starts the real
// service, pings /health every 10 ms while the first /openapi.yaml (then /openapi.json) is fetched,
// and prints each request's time and the longest gap between two answered pings.
//   npm run bench:openapi [-- --postgres] [--warmup <s>]
// --warmup: seconds to wait after the service answers /health before the first request (0 by
// default: the request a client sends the moment the service is up).
import { benchOptions, runBench, startService } from './lib.ts';

const PING_EVERY_MS = 10;
const options = benchOptions(process.argv.slice(2));

interface Probe {
  /** Longest time between two consecutive answered pings while the probe ran, in ms. */
  maxGapMs: number;
  /** Slowest single ping, in ms. */
  maxPingMs: number;
  pings: number;
}

/** Pings `url` every PING_EVERY_MS (one at a time) until stop() is called. */
function pinger(url: string): { stop(): Promise<Probe> } {
  let running = true;
  const probe: Probe = { maxGapMs: 0, maxPingMs: 0, pings: 0 };
  const loop = (async () => {
    let last = performance.now();
    while (running) {
      const started = performance.now();
      const response = await fetch(url);
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`GET ${url}: ${response.status}`);
      const now = performance.now();
      probe.maxPingMs = Math.max(probe.maxPingMs, now - started);
      probe.maxGapMs = Math.max(probe.maxGapMs, now - last);
      probe.pings++;
      last = now;
      await new Promise((done) => setTimeout(done, PING_EVERY_MS));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return probe;
    },
  };
}

async function timed(url: string): Promise<{ ms: number; bytes: number; status: number }> {
  const started = performance.now();
  const response = await fetch(url);
  const body = await response.arrayBuffer();
  return { ms: performance.now() - started, bytes: body.byteLength, status: response.status };
}

await runBench(async (onExit) => {
  const service = await startService({ postgres: options.postgres, profile: options.profile });
  onExit(() => service.stop());
  if (options.warmup > 0) await new Promise((done) => setTimeout(done, options.warmup * 1000));

  const lines = [
    `first OpenAPI requests of a fresh service on ${service.database} (pinging /health every ${PING_EVERY_MS} ms meanwhile)`,
  ];
  for (const path of ['/openapi.yaml', '/openapi.yaml', '/openapi.json', '/docs/json', '/docs', '/docs/js/scalar.js']) {
    const ping = pinger(`${service.url}/health`);
    // Let the pinger establish its rhythm before the request.
    await new Promise((done) => setTimeout(done, 50));
    const result = await timed(service.url + path);
    await new Promise((done) => setTimeout(done, 50));
    const probe = await ping.stop();
    if (result.status !== 200) throw new Error(`GET ${path}: ${result.status}`);
    lines.push(
      `${path.padEnd(18)} ${result.ms.toFixed(0).padStart(6)} ms  ${(result.bytes / 1024).toFixed(0).padStart(5)} kB  ` +
        `longest /health gap ${probe.maxGapMs.toFixed(0).padStart(5)} ms, slowest ping ${probe.maxPingMs.toFixed(0).padStart(5)} ms (${probe.pings} pings)`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
});
