// Pods' REST routes (contract §5), bound from their operations (./operations.ts): the pods, the
// drafts, contact lists and ignore lists under /v1/cells/{cell_id} and /v1/pods/{pod_id}, and the
// cycle jobs of a pod.
import type { TSchema } from 'typebox';
import { Described, NoContent } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { optionalBody } from '../../http/validation.ts';
import type { AnyOperation } from '../../operations/operation.ts';
import type { RestBinder, RestBinding } from '../../operations/rest.ts';
import { normalizePhoneField } from '../messages/schemas.ts';
import { PACE_DOC, POD_PACE_DOC, setPaceHeaders } from '../messages/pace.ts';
import { Message, type MessageView } from '../messages/views.ts';
import type { PodPaces } from './module.ts';
import type { PodOperations } from './operations.ts';
import { scopePrefix } from './schemas.ts';
import {
  ContactList,
  ContactListPage,
  CycleJob,
  CycleJobList,
  Draft,
  DraftList,
  IgnoredList,
  IgnoredParticipant,
  Pod,
  PodList,
} from './views.ts';

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
  const bind = (
    op: AnyOperation,
    method: RestBinding['method'],
    url: string,
    response: TSchema | Omit<RestBinding, 'method' | 'url' | 'tags'>,
  ) => rest.bind(app, op, { method, url, tags: ['Pods'], ...('response' in response ? response : { response }) });
  const toNormalized = { preValidation: normalizePhoneField('to') };
  const earlierPod = 'The pod created earlier with this client_id and the same body.';
  bind(ops.createPod, 'POST', '/v1/pods', createOrEarlier('pod', Pod, 'The created pod.', earlierPod));
  bind(ops.listPods, 'GET', '/v1/pods', Described(PodList, 'A page of pods.'));
  bind(ops.getPod, 'GET', '/v1/pods/:id', Described(Pod, 'The pod.'));
  bind(ops.updatePod, 'PATCH', '/v1/pods/:id', Described(Pod, 'The updated pod.'));
  bind(ops.deletePod, 'DELETE', '/v1/pods/:id', NoContent('Deleted.'));

  for (const kind of ['cell', 'pod'] as const) {
    const drafts = ops.drafts[kind];
    const base = `${scopePrefix(kind)}/drafts`;
    const earlier = 'The draft created earlier with this client_id and the same body.';
    bind(drafts.create, 'POST', base, {
      ...toNormalized,
      ...createOrEarlier('draft', Draft, 'The created draft.', earlier),
    });
    bind(drafts.list, 'GET', base, Described(DraftList, 'A page of drafts.'));
    bind(drafts.get, 'GET', `${base}/:draft_id`, Described(Draft, 'The draft.'));
    bind(drafts.update, 'PATCH', `${base}/:draft_id`, {
      ...toNormalized,
      response: Described(Draft, 'The edited draft.'),
    });
    bind(drafts.discard, 'DELETE', `${base}/:draft_id`, Described(Draft, 'The discarded draft.'));
    bind(drafts.send, 'POST', `${base}/:draft_id/send`, {
      // The body is optional: none is the same as {}.
      preValidation: optionalBody,
      description: drafts.send.description + PACE_DOC,
      response: Described(Message, 'The queued (or scheduled) message.'),
      // The pace of the cell it goes out from (a pod's: the one the rotation picked).
      after: async (_request, reply, message: MessageView) => setPaceHeaders(reply, paces.ofSend(message)),
    });
  }

  for (const kind of ['cell', 'pod'] as const) {
    const lists = ops.lists[kind];
    const base = `${scopePrefix(kind)}/lists`;
    const withNumbers = Described(ContactList, 'The list with its numbers.');
    bind(lists.create, 'POST', base, Described(ContactList, 'The created list with its numbers.'));
    bind(lists.list, 'GET', base, Described(ContactListPage, 'A page of lists.'));
    bind(lists.get, 'GET', `${base}/:list_id`, withNumbers);
    bind(lists.rename, 'PATCH', `${base}/:list_id`, Described(ContactList, 'The renamed list.'));
    bind(lists.remove, 'DELETE', `${base}/:list_id`, NoContent('Deleted.'));
    bind(lists.addNumbers, 'POST', `${base}/:list_id/numbers`, withNumbers);
    bind(lists.removeNumbers, 'POST', `${base}/:list_id/numbers/remove`, withNumbers);
  }

  for (const kind of ['cell', 'pod'] as const) {
    const ignore = ops.ignore[kind];
    const base = `${scopePrefix(kind)}/ignore`;
    bind(ignore.list, 'GET', base, Described(IgnoredList, 'A page of ignored participants.'));
    bind(ignore.add, 'POST', base, {
      preValidation: normalizePhoneField('participant'),
      ...createOrEarlier(
        'entry',
        IgnoredParticipant,
        'The participant is now ignored.',
        'The participant was already ignored here.',
      ),
    });
    bind(ignore.remove, 'DELETE', `${base}/:participant`, NoContent('Removed.'));
  }

  // The path's pod `id` is the operations' `pod_id` (a job's own id is job_id).
  const ofPod = (response: TSchema) => ({ path: { id: 'pod_id' }, response });
  bind(ops.startPodCycle, 'POST', '/v1/pods/:id/messages/cycle', {
    ...ofPod(Described(CycleJob, 'The job, queued.')),
    description: ops.startPodCycle.description + POD_PACE_DOC,
    // A retry with the client_id of an earlier job answers that job, as a replay.
    answer: ({ replayed, job }: { replayed: boolean; job: unknown }) => ({ body: job, replayed }),
    after: async (_request, reply, { job }: { job: { pod_id: string } }) =>
      setPaceHeaders(reply, await paces.ofPod(job.pod_id)),
  });
  bind(ops.listPodJobs, 'GET', '/v1/pods/:id/jobs', ofPod(Described(CycleJobList, 'A page of jobs.')));
  bind(ops.getPodJob, 'GET', '/v1/pods/:id/jobs/:job_id', ofPod(Described(CycleJob, 'The job and its counts.')));
  bind(ops.cancelPodJob, 'POST', '/v1/pods/:id/jobs/:job_id/cancel', ofPod(Described(CycleJob, 'The canceled job.')));
}
