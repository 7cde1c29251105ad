// Accepted sends per second and server CPU per send with billing on (each send debits the prepaid
// balance and writes a ledger row and a usage record in its group-commit transaction) against
// billing off (CELLGATE_BILLING=off: the usage record only). Two services side by side, same
// database kind, same load (POST /v1/cells/{id}/messages/send, 202, distinct Idempotency-Keys, to
// 1,000 recipients in turn), measured in alternating rounds so neither runs on a colder process or
// a smaller database. Target (issue 12): billing on within 10% of off.
//   node bench/billing-sends.ts [--postgres] [--duration 5] [--connections 50] [--warmup 2] [--profile dir]
// --duration is per round; there are ROUNDS rounds of each. The server CPU per send is the steadier
// figure on a busy machine.
import {
  benchOptions,
  load,
  runBench,
  signUpVerified,
  startService,
  type LoadResult,
  type Organization,
  type Service,
} from './lib.ts';
import { distinctNumbers, machineLoad, provisionCell, request, type BenchCell } from './support/cells.ts';

const TARGET = 0.1;
const ROUNDS = 3;
const options = benchOptions(['--duration', '5', ...process.argv.slice(2)]);

interface Side {
  label: string;
  service: Service;
  org: Organization;
  cell: BenchCell;
  rounds: LoadResult[];
}

await runBench(async (onExit) => {
  const start = async (label: string, env: Record<string, string>): Promise<Side> => {
    // Profiles (--profile) go to one subdirectory per side.
    const service = await startService({
      postgres: options.postgres,
      env,
      profile: options.profile && `${options.profile}/${label.replace(/\W+/g, '-')}`,
    });
    onExit(() => service.stop());
    const org = await signUpVerified(service);
    return { label, service, org, cell: await provisionCell(service, org), rounds: [] };
  };
  const on = await start('billing on', { CELLGATE_BILLING: 'on' });
  const off = await start('billing off', { CELLGATE_BILLING: 'off' });
  const balanceBefore = await balance(on);

  const bodies = distinctNumbers(1_000).map((to) =>
    JSON.stringify({ to, body: 'Benchmark message: hello from Cellgate.' }),
  );
  const send = (side: Side, round: number) =>
    load(
      `${side.label}, round ${round + 1}`,
      {
        url: `${side.service.url}/v1/cells/${side.cell.cellId}/messages/send`,
        method: 'POST',
        headers: {
          authorization: `Bearer ${side.org.apiKey}`,
          'content-type': 'application/json',
          'idempotency-key': `bench-${round}-[<id>]`,
        },
        bodies,
        server: side.service,
      },
      options,
    );
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of round % 2 === 0 ? [on, off] : [off, on]) side.rounds.push(await send(side, round));
  }

  // Every 202 must be a queued message with its usage record and, billing on, its debit; each
  // connection's last request of each run (warm-ups too) may be written but not counted.
  for (const side of [on, off]) {
    const auth = { authorization: `Bearer ${side.org.apiKey}` };
    const status = (await request(`${side.service.url}/v1/agent/status`, { headers: auth })) as {
      messages: { queued: number };
    };
    const summary = (await request(`${side.service.url}/v1/usage/summary`, { headers: auth })) as {
      by_type: { type: string; records: number }[];
    };
    const queued = status.messages.queued;
    const accepted = side.rounds.reduce((sum, r) => sum + r.succeeded, 0);
    if (queued < accepted || queued - accepted > 4 * ROUNDS * options.connections)
      throw new Error(`${side.label}: ${accepted} sends answered 202 but ${queued} messages are queued`);
    const records = summary.by_type.find((t) => t.type === 'sms')?.records ?? 0;
    if (records !== queued)
      throw new Error(`${side.label}: ${queued} messages queued but ${records} sms usage records`);
  }
  const debited = Math.round((balanceBefore - (await balance(on))) * 100);
  const onQueued = on.rounds.reduce((sum, r) => sum + r.succeeded, 0);
  if (debited < onQueued || debited - onQueued > 4 * ROUNDS * options.connections)
    throw new Error(`billing on: ${onQueued} sends accepted but ${debited} cents debited`);

  const sendsPerSecond = (side: Side) =>
    side.rounds.reduce((sum, r) => sum + r.requestsPerSecond, 0) / side.rounds.length;
  const cpuPerSend = (side: Side) => {
    if (side.rounds.some((r) => r.serverCpuUs === null)) return null;
    const requests = side.rounds.reduce((sum, r) => sum + r.total, 0);
    return side.rounds.reduce((sum, r) => sum + (r.serverCpuUs as number) * r.total, 0) / requests;
  };
  const cpu = (us: number | null) => (us === null ? '-' : us.toFixed(0));
  const row = (label: string, rate: string, us: string) =>
    `${label.padEnd(26)}  ${rate.padStart(8)}  ${us.padStart(20)}`;
  const lines = [
    `accepted sends, billing on vs off, on ${on.service.database}: ${ROUNDS} alternating rounds of ${options.duration} s each, ${options.connections} connections, ${options.warmup} s warm-up each`,
    machineLoad(),
    row('', 'sends/s', 'server CPU µs/send'),
    ...[on, off].flatMap((side) =>
      side.rounds.map((r) => row(r.label, r.requestsPerSecond.toFixed(0), cpu(r.serverCpuUs))),
    ),
    row('billing on (all rounds)', sendsPerSecond(on).toFixed(0), cpu(cpuPerSend(on))),
    row('billing off (all rounds)', sendsPerSecond(off).toFixed(0), cpu(cpuPerSend(off))),
  ];
  const rateRatio = sendsPerSecond(on) / sendsPerSecond(off);
  lines.push(
    `sends/s on/off: ${rateRatio.toFixed(3)} (target >= ${(1 - TARGET).toFixed(2)}) ${rateRatio >= 1 - TARGET ? 'MET' : 'NOT MET'}`,
  );
  const onCpu = cpuPerSend(on);
  const offCpu = cpuPerSend(off);
  if (onCpu !== null && offCpu !== null) {
    const cpuRatio = onCpu / offCpu;
    lines.push(
      `server CPU per send on/off: ${cpuRatio.toFixed(3)} (target <= ${(1 + TARGET).toFixed(2)}) ${cpuRatio <= 1 + TARGET ? 'MET' : 'NOT MET'}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
});

/** The prepaid balance in USD (GET /v1/billing/status). */
async function balance(side: Side): Promise<number> {
  const status = await request(`${side.service.url}/v1/billing/status`, {
    headers: { authorization: `Bearer ${side.org.apiKey}` },
  });
  return Number(status.prepaid_balance_usd);
}
