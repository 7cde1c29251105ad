// Cycle jobs of a pod: ring and broadcast (contract §5), bound from their operations.
import { Described } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { POD_PACE_DOC, setPaceHeaders } from '../messages/pace.ts';
import type { PodPaces } from './module.ts';
import type { PodOperations } from './operations.ts';
import { CycleJob, CycleJobList } from './views.ts';

const TAGS = ['Pods'];
/** The path's pod `id` is the operations' `pod_id` (a job's own id is job_id). */
const ofPod = { id: 'pod_id' };

export function registerCycleRoutes(app: App, rest: RestBinder, ops: PodOperations, paces: PodPaces): void {
  rest.bind(app, ops.startPodCycle, {
    method: 'POST',
    url: '/v1/pods/:id/messages/cycle',
    path: ofPod,
    tags: TAGS,
    response: Described(CycleJob, 'The job, queued.'),
    description: ops.startPodCycle.description + POD_PACE_DOC,
    // A retry with the client_id of an earlier job answers that job, as a replay.
    answer: ({ replayed, job }: { replayed: boolean; job: unknown }) => ({ body: job, replayed }),
    after: async (_request, reply, { job }: { job: { pod_id: string } }) =>
      setPaceHeaders(reply, await paces.ofPod(job.pod_id)),
  });

  rest.bind(app, ops.listPodJobs, {
    method: 'GET',
    url: '/v1/pods/:id/jobs',
    path: ofPod,
    tags: TAGS,
    response: Described(CycleJobList, 'A page of jobs.'),
  });

  rest.bind(app, ops.getPodJob, {
    method: 'GET',
    url: '/v1/pods/:id/jobs/:job_id',
    path: ofPod,
    tags: TAGS,
    response: Described(CycleJob, 'The job and its counts.'),
  });

  rest.bind(app, ops.cancelPodJob, {
    method: 'POST',
    url: '/v1/pods/:id/jobs/:job_id/cancel',
    path: ofPod,
    tags: TAGS,
    response: Described(CycleJob, 'The canceled job.'),
  });
}
