// Pods' operations (src/operations): the pods themselves and their cycle jobs, with the drafts,
// contact lists and ignore lists under a cell or a pod (./scoped-operations.ts). REST binds them
// in routes.ts, MCP some of them (src/modules/mcp/tools.ts), the console calls them through invoke.
import { Type } from 'typebox';
import { PaginationQuery } from '../../http/pagination.ts';
import { Body } from '../../http/schemas.ts';
import { CELL_EXAMPLE, QuietHoursSchema } from '../cells/schemas.ts';
import { MessageBody, ScheduleFields } from '../messages/schemas.ts';
import type { CycleService } from './cycle-service.ts';
import { CellIds, ClientId, id, Name, podOperation } from './schemas.ts';
import { draftOperations, ignoreOperations, listOperations } from './scoped-operations.ts';
import type { PodsService } from './service.ts';
import { CycleJob, CycleJobList, Pod, POD_EXAMPLE, PodList } from './views.ts';

/** The body of POST /v1/pods/{id}/messages/cycle. */
const CycleFields = {
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
  send_now: Type.Optional({
    ...ScheduleFields.send_now,
    description:
      "The job's messages go out inside their cells' (or the pod's) quiet hours too; without it, a message that would go out inside them is scheduled for their end.",
  }),
};

// A pod's own id is `id` (as a cell's); under it, the pod is `pod_id` (the scoped operations' rule).
const PodId = { id: id('pod') };
const OfPod = { pod_id: id('pod') };
const JobIds = { ...OfPod, job_id: id('job') };

/** A cycle job's start: the pod and the body of POST /v1/pods/{id}/messages/cycle (MCP's start_cycle takes it as is). */
export const StartCycleInput = Body(
  { ...OfPod, ...CycleFields },
  {
    examples: [
      { pod_id: POD_EXAMPLE.id, mode: 'ring' },
      {
        pod_id: POD_EXAMPLE.id,
        mode: 'broadcast',
        body: 'We open at 9 tomorrow.',
        list_id: 'lst_01jdx3e6f7g8h9j0k1m2n3p4q5',
        client_id: 'opening-hours-1',
      },
    ],
  },
);

/** The body of a pod's create, and its update (with the pod's id). */
export const CreatePodBody = Body(
  { name: Name, client_id: ClientId, cell_ids: Type.Optional(CellIds) },
  { examples: [{ name: 'Outreach', client_id: 'create-outreach-pod', cell_ids: [CELL_EXAMPLE.id] }] },
);
export const UpdatePodBody = Body({
  ...PodId,
  name: Type.Optional(Name),
  cell_ids: Type.Optional(CellIds),
  quiet_hours: Type.Optional(QuietHoursSchema),
});

/** The services of the pods, their cycle jobs and (under a cell or a pod) drafts, lists and ignore lists. */
type PodOperationDeps = { pods: PodsService; cycles: CycleService } & Parameters<typeof draftOperations>[1] &
  Parameters<typeof listOperations>[1] &
  Parameters<typeof ignoreOperations>[1];

export function podOperations(deps: PodOperationDeps) {
  const { pods, cycles } = deps;
  return {
    createPod: podOperation({
      name: 'create_pod',
      summary: 'Create a pod',
      description:
        'A sender pool of your cells. A cell is in at most one pod: one in another pod is 409 cell_in_pod; an unknown, released or foreign cell id is 400 (errors[] names each by index). Repeating the same body with the same client_id returns the pod with 200; another body is 409 client_id_conflict.',
      scope: 'cells:write',
      status: 201,
      errors: ['client_id_conflict', 'cell_in_pod', 'conflict'],
      input: CreatePodBody,
      output: Type.Object({ created: Type.Boolean(), pod: Pod }),
      run: (ctx, input) => pods.create(ctx.organizationId, input),
    }),
    listPods: podOperation({
      name: 'list_pods',
      summary: 'List pods, newest first',
      scope: 'cells:read',
      input: Body(PaginationQuery),
      output: PodList,
      run: (ctx, query) => pods.list(ctx.organizationId, query),
    }),
    getPod: podOperation({
      name: 'get_pod',
      summary: 'Read a pod',
      scope: 'cells:read',
      input: Body(PodId),
      output: Pod,
      run: (ctx, input) => pods.get(ctx.organizationId, input.id),
    }),
    updatePod: podOperation({
      name: 'update_pod',
      summary: 'Rename a pod, replace its cells or set its quiet hours',
      description:
        'cell_ids replaces the whole set: cells left out leave the pod (their pod_id becomes null). quiet_hours (null clears them) hold the sends of its cells that have none of their own.',
      scope: 'cells:write',
      errors: ['cell_in_pod'],
      input: UpdatePodBody,
      output: Pod,
      run: (ctx, { id: podId, ...input }) => pods.update(ctx.organizationId, podId, input),
    }),
    deletePod: podOperation({
      name: 'delete_pod',
      summary: 'Delete a pod',
      description: 'Frees its cells (pod_id null) and cancels its open cycle jobs. Its client_id is not reused.',
      scope: 'cells:write',
      status: 204,
      input: Body(PodId),
      output: Type.Null(),
      run: (ctx, input) => pods.remove(ctx.organizationId, input.id).then(() => null),
    }),
    startPodCycle: podOperation({
      name: 'start_pod_cycle',
      summary: 'Start a cycle job (ring or broadcast)',
      description:
        'Answers 202 with the job; the messages are queued in the background and the job is followed to its end (cycle.completed / cycle.failed). A ring needs at least 2 active cells (else 409 conflict). A broadcast sends one message per distinct recipient, each from the cell it already talks to, else spread evenly over the active cells; recipients who texted STOP to a pod cell are skipped. Idempotency-Key header or client_id: a retry returns the same job (Idempotent-Replayed: true).',
      scope: 'messages:send',
      idempotency: 'optional',
      recorded: true,
      status: 202,
      errors: ['conflict', 'client_id_conflict'],
      input: StartCycleInput,
      output: Type.Object({ replayed: Type.Boolean(), job: CycleJob }),
      run: (ctx, { pod_id, ...input }) => cycles.start(ctx.organizationId, pod_id, input, ctx.record),
    }),
    listPodJobs: podOperation({
      name: 'list_pod_jobs',
      summary: 'List the cycle jobs of a pod, newest first',
      scope: 'messages:read',
      input: Body({ ...OfPod, ...PaginationQuery }),
      output: CycleJobList,
      run: (ctx, { pod_id, ...query }) => cycles.list(ctx.organizationId, pod_id, query),
    }),
    getPodJob: podOperation({
      name: 'get_pod_job',
      summary: 'Read a cycle job',
      scope: 'messages:read',
      input: Body(JobIds),
      output: CycleJob,
      run: (ctx, input) => cycles.get(ctx.organizationId, input.pod_id, input.job_id),
    }),
    cancelPodJob: podOperation({
      name: 'cancel_pod_job',
      summary: 'Cancel a cycle job',
      description:
        'What it has not queued is never sent and its messages still queued are canceled; messages already with a phone finish. 409 conflict once the job ended.',
      scope: 'messages:send',
      errors: ['conflict'],
      input: Body(JobIds),
      output: CycleJob,
      run: (ctx, input) => cycles.cancel(ctx.organizationId, input.pod_id, input.job_id),
    }),
    drafts: { cell: draftOperations('cell', deps), pod: draftOperations('pod', deps) },
    lists: { cell: listOperations('cell', deps), pod: listOperations('pod', deps) },
    ignore: { cell: ignoreOperations('cell', deps), pod: ignoreOperations('pod', deps) },
  };
}

export type PodOperations = ReturnType<typeof podOperations>;
