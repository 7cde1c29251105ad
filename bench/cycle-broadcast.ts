// A 10,000-recipient broadcast on a 10-cell pod (POST /v1/pods/{id}/messages/cycle, mode
// broadcast): time until the 202, time until every message is queued (GET /v1/agent/status
// counts the first window queued), and how much the service process's resident set grows meanwhile
// (sampled every 20 ms). No phone claims the messages: this measures planning and queuing.
// Target: 202 in under 1 s.
//   node bench/cycle-broadcast.ts [--postgres]
import { setTimeout as sleep } from 'node:timers/promises';
import { benchOptions, runBench, signUpVerified, startService } from './lib.ts';
import { distinctNumbers, machineLoad, request } from './support/cells.ts';
import { provisionPod, rssMb } from './support/pods.ts';

const RECIPIENTS = 10_000;
const CELLS = 10; // the pro tier's included cells
// The planner queues at most 30 minutes of a cell's send rate (30 segments/min at most, 900 texts)
// at once; the rest wait for room. The bench times the queuing of that first window.
const QUEUED_AT_ONCE = Math.min(RECIPIENTS, CELLS * 30 * 30);
const TARGET_202_MS = 1_000;
const options = benchOptions();

await runBench(async (onExit) => {
  const service = await startService({ postgres: options.postgres, profile: options.profile });
  onExit(() => service.stop());
  const pid = service.child.pid;
  if (pid === undefined) throw new Error('the service has no pid');
  const org = await signUpVerified(service);
  const { podId } = await provisionPod(service, org, CELLS);
  const auth = { authorization: `Bearer ${org.apiKey}` };
  const to = distinctNumbers(RECIPIENTS);
  await sleep(1_000); // let the start-up settle before the baseline
  const baseline = rssMb(pid);
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 20);
  let accepted: number;
  let queuedAll: number;
  let job: Record<string, unknown>;
  try {
    const started = performance.now();
    job = await request(`${service.url}/v1/pods/${podId}/messages/cycle`, {
      method: 'POST',
      headers: auth,
      body: { mode: 'broadcast', body: 'Benchmark broadcast: hello from Cellgate.', to },
      expect: 202,
    });
    accepted = performance.now() - started;
    for (;;) {
      const status = await request(`${service.url}/v1/agent/status`, { headers: auth });
      if ((status.messages as { queued: number }).queued >= QUEUED_AT_ONCE) break;
      if (performance.now() - started > 120_000)
        throw new Error(`${QUEUED_AT_ONCE} messages were not queued within 120 s: ${JSON.stringify(status.messages)}`);
      await sleep(20);
    }
    queuedAll = performance.now() - started;
  } finally {
    clearInterval(sampler);
  }
  const read = await request(`${service.url}/v1/pods/${podId}/jobs/${String(job.id)}`, { headers: auth });
  process.stdout.write(
    [
      `10,000-recipient broadcast over a ${CELLS}-cell pod on ${service.database}`,
      machineLoad(),
      `time to 202:                ${accepted.toFixed(0)} ms (target < ${TARGET_202_MS} ms) ${accepted < TARGET_202_MS ? 'MET' : 'NOT MET'}`,
      `time until ${QUEUED_AT_ONCE} are queued: ${queuedAll.toFixed(0)} ms (${(QUEUED_AT_ONCE / (queuedAll / 1000)).toFixed(0)} messages/s; the rest wait for room)`,
      `RSS: ${baseline.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB: growth ${(peak - baseline).toFixed(0)} MB`,
      `job counts after: ${JSON.stringify(read.counts)}`,
    ].join('\n') + '\n',
  );
});
