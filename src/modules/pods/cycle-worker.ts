// The cycle job loop. Every process runs one; they share the jobs in the database: a claim (a
// conditional update, SKIP LOCKED on PostgreSQL) leases a job to one process, which advances it
// (cycle-planner.ts) and releases it. A process that dies holding a lease only delays the job
// until the lease runs out; items are queued exactly once whoever advances them.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../lib/clock.ts';
import type { CycleRepository } from './cycle-repository.ts';
import type { AdvanceOptions, CyclePlanner } from './cycle-planner.ts';

export const CYCLE_JOBS_INTERVAL_MS = 1000;
/** How long a claim holds a job without renewing it (each planned batch renews it). */
export const CYCLE_LEASE_MS = 60_000;
const CLAIM_LIMIT = 10;

export class CycleWorker {
  private readonly repo: CycleRepository;
  private readonly planner: CyclePlanner;
  private readonly clock: Clock;
  private readonly log: FastifyBaseLogger;

  constructor(deps: { repo: CycleRepository; planner: CyclePlanner; clock: Clock; log: FastifyBaseLogger }) {
    ({ repo: this.repo, planner: this.planner, clock: this.clock, log: this.log } = deps);
  }

  /**
   * Claims open jobs and advances each once; how many it advanced. Tests drive it with a manual
   * clock (and `leaseMs: 0` to let two processes work on one job at once).
   */
  async tick(options: AdvanceOptions & { leaseMs?: number } = {}): Promise<number> {
    const token = randomUUID();
    const leaseEnd = () => new Date(this.clock.now().getTime() + (options.leaseMs ?? CYCLE_LEASE_MS)).toISOString();
    const jobs = await this.repo.claimJobs(this.clock.now().toISOString(), leaseEnd(), token, CLAIM_LIMIT);
    let failure: unknown;
    for (const job of jobs) {
      try {
        await this.planner.advance(job, () => this.repo.renewLease(job.id, token, leaseEnd()), options);
      } catch (error) {
        // The first failure fails the tick (the loop logs it); later ones are logged here.
        if (failure === undefined) failure = error;
        else this.log.error({ err: error, job: job.id }, 'advancing a cycle job failed');
      } finally {
        await this.repo.releaseLease(job.id, token);
      }
    }
    if (failure !== undefined) throw failure;
    return jobs.length;
  }
}
