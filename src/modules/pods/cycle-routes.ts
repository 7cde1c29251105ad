// Cycle jobs of a pod: ring and broadcast (contract §5).
import { Type } from 'typebox';
import { agentOf } from '../../http/auth.ts';
import { PaginationQuery } from '../../http/pagination.ts';
import { Described, IdParam } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { CycleRequest, type PodOperations } from './operations.ts';
import type { CycleService } from './cycle-service.ts';
import { PodPath } from './schemas.ts';
import { CycleJob, CycleJobList } from './views.ts';

const TAGS = ['Pods'];
const JobParams = Type.Object({ ...PodPath.properties, ...IdParam('job_id', 'job').properties });

export function registerCycleRoutes(app: App, cycles: CycleService, rest: RestBinder, ops: PodOperations): void {
  rest.bind(app, ops.startPodCycle, {
    method: 'POST',
    url: '/v1/pods/:id/messages/cycle',
    tags: TAGS,
    params: PodPath,
    body: CycleRequest,
    response: Described(CycleJob, 'The job, queued.'),
    // A retry with the client_id of an earlier job answers that job, as a replay.
    answer: ({ replayed, job }: { replayed: boolean; job: unknown }) => ({ body: job, replayed }),
  });

  app.get(
    '/v1/pods/:id/jobs',
    {
      config: { auth: 'agent', scope: 'messages:read' },
      schema: {
        operationId: 'listPodJobs',
        tags: TAGS,
        summary: 'List the cycle jobs of a pod, newest first',
        params: PodPath,
        querystring: Type.Object(PaginationQuery),
        response: { 200: Described(CycleJobList, 'A page of jobs.') },
      },
    },
    async (request) => cycles.list(agentOf(request).organizationId, request.params.id, request.query),
  );

  app.get(
    '/v1/pods/:id/jobs/:job_id',
    {
      config: { auth: 'agent', scope: 'messages:read' },
      schema: {
        operationId: 'getPodJob',
        tags: TAGS,
        summary: 'Read a cycle job',
        params: JobParams,
        response: { 200: Described(CycleJob, 'The job and its counts.') },
      },
    },
    async (request) => cycles.get(agentOf(request).organizationId, request.params.id, request.params.job_id),
  );

  app.post(
    '/v1/pods/:id/jobs/:job_id/cancel',
    {
      config: { auth: 'agent', scope: 'messages:send', errors: ['conflict'] },
      schema: {
        operationId: 'cancelPodJob',
        tags: TAGS,
        summary: 'Cancel a cycle job',
        description:
          'What it has not queued is never sent and its messages still queued are canceled; messages already with a phone finish. 409 conflict once the job ended.',
        params: JobParams,
        response: { 200: Described(CycleJob, 'The canceled job.') },
      },
    },
    async (request) => cycles.cancel(agentOf(request).organizationId, request.params.id, request.params.job_id),
  );
}
