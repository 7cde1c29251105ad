// Accepted sends per second: POST /v1/cells/{id}/messages/send (202, a distinct Idempotency-Key per
// request, to 1,000 recipients in turn, then all to one) against a bare Fastify JSON route, both on
// loopback, measured in the same run.
// No device claims the messages: this measures accepting and queueing. Target: ratio >= 0.25.
//   node bench/send-throughput.ts [--postgres] [--duration 10] [--connections 50] [--warmup 2] [--profile dir]
import { benchOptions, printResults, runBench, signUpVerified, startBareFastify, startService, load } from './lib.ts';
import { benchPhoneNumber, distinctNumbers, provisionCell } from './support/cells.ts';

const TARGET_RATIO = 0.25;
const options = benchOptions();

await runBench(async (onExit) => {
  const service = await startService({ postgres: options.postgres, profile: options.profile });
  onExit(() => service.stop());
  const bare = await startBareFastify();
  onExit(() => bare.stop());
  const org = await signUpVerified(service);
  const cell = await provisionCell(service, org);

  const reference = await load('bare Fastify GET /hello', { url: `${bare.url}/hello`, server: bare }, options);
  const send = (label: string, recipients: string[]) =>
    load(
      label,
      {
        url: `${service.url}/v1/cells/${cell.cellId}/messages/send`,
        method: 'POST',
        headers: {
          authorization: `Bearer ${org.apiKey}`,
          'content-type': 'application/json',
          'idempotency-key': 'bench-[<id>]',
        },
        bodies: recipients.map((to) => JSON.stringify({ to, body: 'Benchmark message: hello from Cellgate.' })),
        server: service,
      },
      options,
    );
  const sends = await send('POST .../messages/send, 1,000 recipients', distinctNumbers(1_000));
  // Every send to one recipient updates one conversation row: the worst case for write contention.
  const oneConversation = await send('POST .../messages/send, 1 recipient', [benchPhoneNumber()]);

  // Every 202 must be a new queued message: a replayed key would count as a send without the work.
  // Each connection's last request of each run (warm-ups too) may be written but not counted.
  const status = await fetch(`${service.url}/v1/agent/status`, {
    headers: { authorization: `Bearer ${org.apiKey}` },
  }).then((r) => r.json() as Promise<{ messages: { queued: number } }>);
  const accepted = sends.succeeded + oneConversation.succeeded;
  const uncounted = status.messages.queued - accepted;
  if (uncounted < 0 || uncounted > 4 * options.connections)
    throw new Error(`${accepted} sends answered 202 but ${status.messages.queued} messages are queued`);

  const ratio = sends.requestsPerSecond / reference.requestsPerSecond;
  printResults(
    `accepted sends vs bare Fastify on ${service.database}: ${options.duration} s, ${options.connections} connections, ${options.warmup} s warm-up each`,
    [reference, sends, oneConversation],
  );
  process.stdout.write(
    `ratio sends/bare (1,000 recipients): ${ratio.toFixed(2)} (target >= ${TARGET_RATIO}) ${ratio >= TARGET_RATIO ? 'MET' : 'NOT MET'}\n`,
  );
  process.stdout.write(
    `ratio sends/bare (1 recipient): ${(oneConversation.requestsPerSecond / reference.requestsPerSecond).toFixed(2)}\n`,
  );
  if (reference.serverCpuUs && sends.serverCpuUs) {
    // Less sensitive to other load on the machine than req/s: server CPU spent per request.
    process.stdout.write(
      `CPU-per-request ratio bare/sends: ${(reference.serverCpuUs / sends.serverCpuUs).toFixed(2)}\n`,
    );
  }
});
