// Pods: sender pools of cells (contract §5).
import { Type } from 'typebox';
import { agentOf } from '../../http/auth.ts';
import { PaginationQuery } from '../../http/pagination.ts';
import { Body, Described, NoContent } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { ClientId, Name, PodPath } from './schemas.ts';
import type { PodsService } from './service.ts';
import { Pod, PodList } from './views.ts';
import { QuietHoursSchema } from '../cells/schemas.ts';

const TAGS = ['Pods'];

const CellIds = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  maxItems: 1000,
  description: 'The cells of the pod (the whole set). Each must be a live cell of the organization in no other pod.',
});

export function registerPodRoutes(app: App, pods: PodsService): void {
  app.post(
    '/v1/pods',
    {
      config: { auth: 'agent', scope: 'cells:write', errors: ['client_id_conflict', 'cell_in_pod'] },
      schema: {
        operationId: 'createPod',
        tags: TAGS,
        summary: 'Create a pod',
        description:
          'A sender pool of your cells. A cell is in at most one pod: one in another pod is 409 cell_in_pod; an unknown, released or foreign cell id is 400 (errors[] names each by index). Repeating the same body with the same client_id returns the pod with 200; another body is 409 client_id_conflict.',
        body: Body(
          { name: Name, client_id: ClientId, cell_ids: Type.Optional(CellIds) },
          {
            examples: [
              { name: 'Outreach', client_id: 'create-outreach-pod', cell_ids: ['cell_01jdx2b7c8d9e0f1g2h3j4k5m6'] },
            ],
          },
        ),
        response: {
          200: Described(Pod, 'The pod created earlier with this client_id and the same body.'),
          201: Described(Pod, 'The created pod.'),
        },
      },
    },
    async (request, reply) => {
      const { created, pod } = await pods.create(agentOf(request).organizationId, request.body);
      return reply.code(created ? 201 : 200).send(pod);
    },
  );

  app.get(
    '/v1/pods',
    {
      config: { auth: 'agent', scope: 'cells:read' },
      schema: {
        operationId: 'listPods',
        tags: TAGS,
        summary: 'List pods, newest first',
        querystring: Type.Object(PaginationQuery),
        response: { 200: Described(PodList, 'A page of pods.') },
      },
    },
    async (request) => pods.list(agentOf(request).organizationId, request.query),
  );

  app.get(
    '/v1/pods/:id',
    {
      config: { auth: 'agent', scope: 'cells:read' },
      schema: {
        operationId: 'getPod',
        tags: TAGS,
        summary: 'Read a pod',
        params: PodPath,
        response: { 200: Described(Pod, 'The pod.') },
      },
    },
    async (request) => pods.get(agentOf(request).organizationId, request.params.id),
  );

  app.patch(
    '/v1/pods/:id',
    {
      config: { auth: 'agent', scope: 'cells:write', errors: ['cell_in_pod'] },
      schema: {
        operationId: 'updatePod',
        tags: TAGS,
        summary: 'Rename a pod, replace its cells or set its quiet hours',
        description:
          'cell_ids replaces the whole set: cells left out leave the pod (their pod_id becomes null). quiet_hours (null clears them) hold the sends of its cells that have none of their own.',
        params: PodPath,
        body: Body({
          name: Type.Optional(Name),
          cell_ids: Type.Optional(CellIds),
          quiet_hours: Type.Optional(QuietHoursSchema),
        }),
        response: { 200: Described(Pod, 'The updated pod.') },
      },
    },
    async (request) => pods.update(agentOf(request).organizationId, request.params.id, request.body),
  );

  app.delete(
    '/v1/pods/:id',
    {
      config: { auth: 'agent', scope: 'cells:write' },
      schema: {
        operationId: 'deletePod',
        tags: TAGS,
        summary: 'Delete a pod',
        description: 'Frees its cells (pod_id null) and cancels its open cycle jobs. Its client_id is not reused.',
        params: PodPath,
        response: { 204: NoContent('Deleted.') },
      },
    },
    async (request, reply) => {
      await pods.remove(agentOf(request).organizationId, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
