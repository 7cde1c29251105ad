// Server CPU per request: sending a pod draft (POST /v1/pods/{id}/drafts/{draft_id}/send: draft
// read, sticky lookup, rotation, send, draft marked sent in the send's transaction) against a
// plain send (POST /v1/cells/{id}/messages/send), each to distinct recipients, with the same
// number of requests and concurrent clients, measured in the same run. The drafts are created
// beforehand (not measured).
//   node bench/pod-draft-send.ts [--postgres] [--connections 20]
import { randomBytes } from 'node:crypto';
import { benchOptions, runBench, signUpVerified, startService } from './lib.ts';
import { distinctNumbers, machineLoad, request } from './support/cells.ts';
import { cpuSeconds, provisionPod, runConcurrently } from './support/pods.ts';

const REQUESTS = 3_000;
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
    const draft = await request(`${service.url}/v1/pods/${podId}/drafts`, { method: 'POST', headers: auth, body: { client_id: `bench-${run}-${i}`, to: numbers[REQUESTS + i], body: 'Benchmark draft: hello from Cellgate.' }, expect: 201 });
    drafts[i] = String(draft.id);
  });

  const measure = async (label: string, send: (i: number) => Promise<void>) => {
    await runConcurrently(200, options.connections, send); // warm-up, not measured
    const before = cpuSeconds(pid);
    const ms = await runConcurrently(REQUESTS - 200, options.connections, (i) => send(i + 200));
    const cpuUs = ((cpuSeconds(pid) - before) * 1e6) / (REQUESTS - 200);
    return `${label.padEnd(34)} ${((REQUESTS - 200) / (ms / 1000)).toFixed(0).padStart(7)} req/s  ${cpuUs.toFixed(0).padStart(6)} µs server CPU/request`;
  };
  const plain = await measure('POST .../messages/send', async (i) => {
    await request(`${service.url}/v1/cells/${cells[i % cells.length].cellId}/messages/send`, { method: 'POST', headers: { ...auth, 'idempotency-key': `plain-${run}-${i}` }, body: { to: numbers[i], body: 'Benchmark message: hello from Cellgate.' }, expect: 202 });
  });
  const pod = await measure('POST /v1/pods/.../drafts/{id}/send', async (i) => {
    await request(`${service.url}/v1/pods/${podId}/drafts/${drafts[i]}/send`, { method: 'POST', headers: { ...auth, 'idempotency-key': `draft-${run}-${i}` }, expect: 202 });
  });
  process.stdout.write([
    `pod draft send vs plain send on ${service.database}: ${REQUESTS - 200} requests each after 200 warm-up, ${options.connections} concurrent clients`,
    machineLoad(),
    plain,
    pod,
  ].join('\n') + '\n');
});
