// A 10,000-recipient broadcast on a 4-cell pod (POST /v1/pods/{id}/messages/cycle, mode
// broadcast): time until the 202, time until every message is queued (GET /v1/agent/status
// counts 10,000 queued), and how much the service process's resident set grows meanwhile
// (sampled every 20 ms). No phone claims the messages: this measures planning and queuing.
// Target: 202 in under 1 s.
//   node bench/cycle-broadcast.ts [--postgres]
import { setTimeout as sleep } from 'node:timers/promises';
import { benchOptions, runBench, signUpVerified, startService } from './lib.ts';
import { distinctNumbers, machineLoad, request } from './support/cells.ts';
import { provisionPod, rssMb } from './support/pods.ts';

const RECIPIENTS = 10_000;
const TARGET_202_MS = 1_000;
const options = benchOptions();

await runBench(async (onExit) => {
  const service = await startService({ postgres: options.postgres, profile: options.profile });
  onExit(() => service.stop());
  const pid = service.child.pid;
  if (pid === undefined) throw new Error('the service has no pid');
  const org = await signUpVerified(service);
  const { podId } = await provisionPod(service, org, 4);
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
      if ((status.messages as { queued: number }).queued >= RECIPIENTS) break;
      if (performance.now() - started > 120_000)
        throw new Error(`not every message was queued within 120 s: ${JSON.stringify(status.messages)}`);
      await sleep(20);
    }
    queuedAll = performance.now() - started;
  } finally {
    clearInterval(sampler);
  }
  const read = await request(`${service.url}/v1/pods/${podId}/jobs/${String(job.id)}`, { headers: auth });
  process.stdout.write(
    [
      `10,000-recipient broadcast over a 4-cell pod on ${service.database}`,
      machineLoad(),
      `time to 202:                ${accepted.toFixed(0)} ms (target < ${TARGET_202_MS} ms) ${accepted < TARGET_202_MS ? 'MET' : 'NOT MET'}`,
      `time until all are queued:  ${queuedAll.toFixed(0)} ms (${(RECIPIENTS / (queuedAll / 1000)).toFixed(0)} messages/s)`,
      `RSS: ${baseline.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB: growth ${(peak - baseline).toFixed(0)} MB`,
      `job counts after: ${JSON.stringify(read.counts)}`,
    ].join('\n') + '\n',
  );
});
