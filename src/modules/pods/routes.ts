// Pods' REST routes (contract §5), bound from their operations (./operations.ts): the pods, the
// drafts, contact lists and ignore lists under /v1/cells/{cell_id} and /v1/pods/{pod_id}, and the
// cycle jobs of a pod.
import type { TSchema } from 'typebox';
import { Described } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { optionalBody } from '../../http/validation.ts';
import type { AnyOperation } from '../../operations/operation.ts';
import type { RestBinder, RestBinding } from '../../operations/rest.ts';
import { normalizePhoneField } from '../messages/schemas.ts';
import { PACE_DOC, POD_PACE_DOC, setPaceHeaders } from '../messages/pace.ts';
import type { MessageView } from '../messages/views.ts';
import type { PodPaces } from './module.ts';
import type { PodOperations } from './operations.ts';
import { scopePrefix } from './schemas.ts';
import { CycleJob, Draft, IgnoredParticipant, Pod } from './views.ts';

/** A create's answers: 201 with `key` of its value when new, 200 when the same create came before. */
const createOrEarlier = (key: string, schema: TSchema, fresh: string, earlier: string) => ({
  response: Described(schema, fresh),
  responses: { 200: Described(schema, earlier) },
  answer: (value: { created: boolean } & Record<string, unknown>) => ({
    body: value[key],
    status: value.created ? 201 : 200,
  }),
});

export function registerPodRoutes(app: App, rest: RestBinder, ops: PodOperations, paces: PodPaces): void {
  type Rest = Omit<RestBinding, 'method' | 'url' | 'tags'>;
  /** `response` a text: the operation's own output, so described. */
  const bind = (
    op: AnyOperation,
    method: RestBinding['method'],
    url: string,
    response: string | Rest,
    more: Partial<Rest> = {},
  ) => {
    const binding = typeof response === 'string' ? { response: Described(op.output, response) } : response;
    rest.bind(app, op, { method, url, tags: ['Pods'], ...binding, ...more });
  };
  const toNormalized = { preValidation: normalizePhoneField('to') };
  const earlierPod = 'The pod created earlier with this client_id and the same body.';
  bind(ops.createPod, 'POST', '/v1/pods', createOrEarlier('pod', Pod, 'The created pod.', earlierPod));
  bind(ops.listPods, 'GET', '/v1/pods', 'A page of pods.');
  bind(ops.getPod, 'GET', '/v1/pods/:id', 'The pod.');
  bind(ops.updatePod, 'PATCH', '/v1/pods/:id', 'The updated pod.');
  bind(ops.deletePod, 'DELETE', '/v1/pods/:id', 'Deleted.');

  for (const kind of ['cell', 'pod'] as const) {
    const drafts = ops.drafts[kind];
    const base = `${scopePrefix(kind)}/drafts`;
    const earlier = 'The draft created earlier with this client_id and the same body.';
    bind(drafts.create, 'POST', base, {
      ...toNormalized,
      ...createOrEarlier('draft', Draft, 'The created draft.', earlier),
    });
    bind(drafts.list, 'GET', base, 'A page of drafts.');
    bind(drafts.get, 'GET', `${base}/:draft_id`, 'The draft.');
    bind(drafts.update, 'PATCH', `${base}/:draft_id`, 'The edited draft.', toNormalized);
    bind(drafts.discard, 'DELETE', `${base}/:draft_id`, 'The discarded draft.');
    bind(drafts.send, 'POST', `${base}/:draft_id/send`, 'The queued (or scheduled) message.', {
      // The body is optional: none is the same as {}.
      preValidation: optionalBody,
      description: drafts.send.description + PACE_DOC,
      // The pace of the cell it goes out from (a pod's: the one the rotation picked).
      after: async (_request, reply, message: MessageView) => setPaceHeaders(reply, paces.ofSend(message)),
    });
  }

  for (const kind of ['cell', 'pod'] as const) {
    const lists = ops.lists[kind];
    const base = `${scopePrefix(kind)}/lists`;
    const withNumbers = 'The list with its numbers.';
    bind(lists.create, 'POST', base, 'The created list with its numbers.');
    bind(lists.list, 'GET', base, 'A page of lists.');
    bind(lists.get, 'GET', `${base}/:list_id`, withNumbers);
    bind(lists.rename, 'PATCH', `${base}/:list_id`, 'The renamed list.');
    bind(lists.remove, 'DELETE', `${base}/:list_id`, 'Deleted.');
    bind(lists.addNumbers, 'POST', `${base}/:list_id/numbers`, withNumbers);
    bind(lists.removeNumbers, 'POST', `${base}/:list_id/numbers/remove`, withNumbers);
  }

  for (const kind of ['cell', 'pod'] as const) {
    const ignore = ops.ignore[kind];
    const base = `${scopePrefix(kind)}/ignore`;
    bind(ignore.list, 'GET', base, 'A page of ignored participants.');
    bind(ignore.add, 'POST', base, {
      preValidation: normalizePhoneField('participant'),
      ...createOrEarlier(
        'entry',
        IgnoredParticipant,
        'The participant is now ignored.',
        'The participant was already ignored here.',
      ),
    });
    bind(ignore.remove, 'DELETE', `${base}/:participant`, 'Removed.');
  }

  // The path's pod `id` is the operations' `pod_id` (a job's own id is job_id).
  const ofPod = { path: { id: 'pod_id' } };
  bind(ops.startPodCycle, 'POST', '/v1/pods/:id/messages/cycle', {
    ...ofPod,
    response: Described(CycleJob, 'The job, queued.'),
    description: ops.startPodCycle.description + POD_PACE_DOC,
    // A retry with the client_id of an earlier job answers that job, as a replay.
    answer: ({ replayed, job }: { replayed: boolean; job: unknown }) => ({ body: job, replayed }),
    after: async (_request, reply, { job }: { job: { pod_id: string } }) =>
      setPaceHeaders(reply, await paces.ofPod(job.pod_id)),
  });
  bind(ops.listPodJobs, 'GET', '/v1/pods/:id/jobs', 'A page of jobs.', ofPod);
  bind(ops.getPodJob, 'GET', '/v1/pods/:id/jobs/:job_id', 'The job and its counts.', ofPod);
  bind(ops.cancelPodJob, 'POST', '/v1/pods/:id/jobs/:job_id/cancel', 'The canceled job.', ofPod);
}
