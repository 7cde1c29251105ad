// Server CPU per request: sending a pod draft (POST /v1/pods/{id}/drafts/{draft_id}/send: draft
// read, sticky lookup, rotation, send, draft marked sent in the send's transaction) against a
// plain send (POST /v1/cells/{id}/messages/send), each to distinct recipients, with the same
// number of requests and concurrent clients, measured in the same run (alternating rounds). The
// drafts are created beforehand (not measured).
//   node bench/pod-draft-send.ts [--postgres] [--connections 20]
import { randomBytes } from 'node:crypto';
import { benchOptions, runBench, signUpVerified, startService } from './lib.ts';
import { distinctNumbers, machineLoad, request } from './support/cells.ts';
import { cpuSeconds, provisionPod, runConcurrently } from './support/pods.ts';

const REQUESTS = 4_200;
const WARMUP = 200;
const ROUNDS = 4;
const options = benchOptions(['--connections', '20', ...process.argv.slice(2)]);

await runBench(async (onExit) => {
  const service = await startService({ postgres: options.postgres, profile: options.profile });
  onExit(() => service.stop());
  const pid = service.child.pid;
  if (pid === undefined) throw new Error('the service has no pid');
  const org = await signUpVerified(service);
  const { podId, cells } = await provisionPod(service, org, 4);
  const auth = { authorization: `Bearer ${org.apiKey}` };
  const run = randomBytes(4).toString('hex');

  const numbers = distinctNumbers(2 * REQUESTS);
  const drafts: string[] = [];
  await runConcurrently(REQUESTS, options.connections, async (i) => {
    const draft = await request(`${service.url}/v1/pods/${podId}/drafts`, {
      method: 'POST',
      headers: auth,
      body: {
        client_id: `bench-${run}-${i}`,
        to: numbers[REQUESTS + i],
        body: 'Benchmark draft: hello from Cellgate.',
      },
      expect: 201,
    });
    drafts[i] = String(draft.id);
  });

  // Warm-up, not measured; then rounds alternate between the two, so that neither is measured
  // on a colder process or a smaller database than the other.
  const target = (label: string, send: (i: number) => Promise<void>) => ({ label, send, cpu: 0, ms: 0 });
  const plain = target('POST .../messages/send', async (i) => {
    await request(`${service.url}/v1/cells/${cells[i % cells.length].cellId}/messages/send`, {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': `plain-${run}-${i}` },
      body: { to: numbers[i], body: 'Benchmark message: hello from Cellgate.' },
      expect: 202,
    });
  });
  const pod = target('POST /v1/pods/.../drafts/{id}/send', async (i) => {
    await request(`${service.url}/v1/pods/${podId}/drafts/${drafts[i]}/send`, {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': `draft-${run}-${i}` },
      expect: 202,
    });
  });
  for (const { send } of [plain, pod]) await runConcurrently(WARMUP, options.connections, send);
  const perRound = (REQUESTS - WARMUP) / ROUNDS;
  for (let round = 0; round < ROUNDS; round++) {
    for (const measured of round % 2 === 0 ? [plain, pod] : [pod, plain]) {
      const before = cpuSeconds(pid);
      measured.ms += await runConcurrently(perRound, options.connections, (i) =>
        measured.send(WARMUP + round * perRound + i),
      );
      measured.cpu += cpuSeconds(pid) - before;
    }
  }
  const line = ({ label, cpu, ms }: typeof plain) =>
    `${label.padEnd(34)} ${((REQUESTS - WARMUP) / (ms / 1000)).toFixed(0).padStart(7)} req/s  ${((cpu * 1e6) / (REQUESTS - WARMUP)).toFixed(0).padStart(6)} µs server CPU/request`;
  const excess = 100 * (pod.cpu / plain.cpu - 1);
  process.stdout.write(
    [
      `pod draft send vs plain send on ${service.database}: ${REQUESTS - WARMUP} requests each after ${WARMUP} warm-up, in ${ROUNDS} alternating rounds, ${options.connections} concurrent clients`,
      machineLoad(),
      line(plain),
      line(pod),
      `pod draft send against a plain send: ${excess >= 0 ? '+' : ''}${excess.toFixed(0)}% server CPU per request (target: within 10%)`,
    ].join('\n') + '\n',
  );
});
