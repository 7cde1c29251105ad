// Cycle jobs of a pod: ring and broadcast (contract §5), bound from their operations.
import { Type } from 'typebox';
import { PaginationQuery } from '../../http/pagination.ts';
import { Described, IdParam } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { POD_PACE_DOC, setPaceHeaders } from '../messages/pace.ts';
import type { PodPaces } from './module.ts';
import { CycleRequest, type PodOperations } from './operations.ts';
import { PodPath } from './schemas.ts';
import { CycleJob, CycleJobList } from './views.ts';

const TAGS = ['Pods'];
const JobParams = Type.Object({ ...PodPath.properties, ...IdParam('job_id', 'job').properties });
/** The path's pod `id` is the operations' `pod_id` (a job's own id is job_id). */
const ofPod = ({ id, ...fields }: Record<string, unknown>) => ({ ...fields, pod_id: id });

export function registerCycleRoutes(app: App, rest: RestBinder, ops: PodOperations, paces: PodPaces): void {
  rest.bind(app, ops.startPodCycle, {
    method: 'POST',
    url: '/v1/pods/:id/messages/cycle',
    input: ofPod,
    tags: TAGS,
    params: PodPath,
    body: CycleRequest,
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
    input: ofPod,
    tags: TAGS,
    params: PodPath,
    querystring: Type.Object(PaginationQuery),
    response: Described(CycleJobList, 'A page of jobs.'),
  });

  rest.bind(app, ops.getPodJob, {
    method: 'GET',
    url: '/v1/pods/:id/jobs/:job_id',
    input: ofPod,
    tags: TAGS,
    params: JobParams,
    response: Described(CycleJob, 'The job and its counts.'),
  });

  rest.bind(app, ops.cancelPodJob, {
    method: 'POST',
    url: '/v1/pods/:id/jobs/:job_id/cancel',
    input: ofPod,
    tags: TAGS,
    params: JobParams,
    response: Described(CycleJob, 'The canceled job.'),
  });
}
