// Pods: sender pools of cells (contract §5), bound from their operations (./operations.ts).
import { Described, NoContent } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import type { PodOperations } from './operations.ts';
import { Pod, PodList, type PodView } from './views.ts';

const TAGS = ['Pods'];

export function registerPodRoutes(app: App, rest: RestBinder, ops: PodOperations): void {
  rest.bind(app, ops.createPod, {
    method: 'POST',
    url: '/v1/pods',
    tags: TAGS,
    response: Described(Pod, 'The created pod.'),
    responses: { 200: Described(Pod, 'The pod created earlier with this client_id and the same body.') },
    answer: ({ created, pod }: { created: boolean; pod: PodView }) => ({ body: pod, status: created ? 201 : 200 }),
  });

  rest.bind(app, ops.listPods, {
    method: 'GET',
    url: '/v1/pods',
    tags: TAGS,
    response: Described(PodList, 'A page of pods.'),
  });

  rest.bind(app, ops.getPod, {
    method: 'GET',
    url: '/v1/pods/:id',
    tags: TAGS,
    response: Described(Pod, 'The pod.'),
  });

  rest.bind(app, ops.updatePod, {
    method: 'PATCH',
    url: '/v1/pods/:id',
    tags: TAGS,
    response: Described(Pod, 'The updated pod.'),
  });

  rest.bind(app, ops.deletePod, {
    method: 'DELETE',
    url: '/v1/pods/:id',
    tags: TAGS,
    response: NoContent('Deleted.'),
  });
}
