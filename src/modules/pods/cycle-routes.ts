// Cycle jobs of a pod: ring and broadcast (contract §5).
import { Type } from 'typebox';
import { agentOf } from '../../http/auth.ts';
import { IdempotencyKeyHeaders, recordedResponse } from '../../http/idempotency.ts';
import { PaginationQuery } from '../../http/pagination.ts';
import { Body, Described, IdParam } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { MessageBody, ScheduleFields } from '../messages/schemas.ts';
import type { CycleService } from './cycle-service.ts';
import { ClientId, PodPath } from './schemas.ts';
import { CycleJob, CycleJobList } from './views.ts';

const TAGS = ['Pods'];
const JobParams = Type.Object({ ...PodPath.properties, ...IdParam('job_id', 'job').properties });

const CycleRequest = Body(
  {
    mode: Type.Enum(['ring', 'broadcast'], {
      description:
        'ring: each active cell texts the next. broadcast: one message per distinct recipient, over the active cells.',
    }),
    body: Type.Optional({
      ...MessageBody,
      description: 'The text; required for a broadcast, a default ring-check text for a ring.',
    }),
    to: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        minItems: 1,
        maxItems: 10_000,
        description:
          'Broadcast recipients, E.164 (1-10,000; duplicates count once). A bad one is reported by its index (to.<i>). Exactly one of to and list_id.',
      }),
    ),
    list_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'Broadcast to a contact list of the organization (lst_...). Exactly one of to and list_id.',
      }),
    ),
    client_id: Type.Optional(ClientId),
    send_at: Type.Optional({
      ...ScheduleFields.send_at,
      description:
        'A broadcast only: its messages are scheduled for this ISO 8601 time with offset (at most 30 days ahead), and queued and charged then.',
    }),
  },
  {
    examples: [
      { mode: 'ring' },
      {
        mode: 'broadcast',
        body: 'We open at 9 tomorrow.',
        list_id: 'lst_01jdx3e6f7g8h9j0k1m2n3p4q5',
        client_id: 'opening-hours-1',
      },
    ],
  },
);

export function registerCycleRoutes(app: App, cycles: CycleService): void {
  app.post(
    '/v1/pods/:id/messages/cycle',
    {
      config: {
        auth: 'agent',
        scope: 'messages:send',
        idempotent: 'recorded',
        errors: ['conflict', 'client_id_conflict'],
      },
      schema: {
        operationId: 'startPodCycle',
        tags: TAGS,
        summary: 'Start a cycle job (ring or broadcast)',
        description:
          'Answers 202 with the job; the messages are queued in the background and the job is followed to its end (cycle.completed / cycle.failed). A ring needs at least 2 active cells (else 409 conflict). A broadcast sends one message per distinct recipient, each from the cell it already talks to, else spread evenly over the active cells; recipients who texted STOP to a pod cell are skipped. Idempotency-Key header or client_id: a retry returns the same job (Idempotent-Replayed: true).',
        params: PodPath,
        headers: IdempotencyKeyHeaders,
        body: CycleRequest,
        response: { 202: Described(CycleJob, 'The job, queued.') },
      },
    },
    async (request, reply) =>
      recordedResponse(request, reply, 202, async (record) => {
        const { replayed, job } = await cycles.start(
          agentOf(request).organizationId,
          request.params.id,
          request.body,
          record,
        );
        if (replayed) reply.header('Idempotent-Replayed', 'true');
        return job;
      }),
  );

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
