// The Pods section: its pods, a pod's page and its forms (drafts, contact lists, ignored numbers,
// rings and broadcasts), a job's progress (live). Every read and write goes through the pods
// operations (invoke, as the console's principal), so what it allows and refuses is what the API
// would; another organization's pod (or draft, list, job) is 404 like an unknown one.
import type { App } from '../../../http/types.ts';
import { ApiError } from '../../../lib/errors.ts';
import type { Html } from '../../../lib/html.ts';
import { consoleBinder, type Ask, type Refusal } from '../binder.ts';
import { pageLive } from '../conversations/live.ts';
import { allCells } from '../messages/routes.ts';
import type { ConsoleModule } from '../module.ts';
import { postQuietHours } from '../quiet-hours.ts';
import {
  cellIdsOf,
  deletePodPage,
  draftPage,
  jobPage,
  podPage,
  podPath,
  podsPage,
  PODS_PATH,
  type PodForms,
} from './pages.ts';

const PAGE = 50;
const POD = `${PODS_PATH}/:pod_id`;

/** One number per line (commas too), blanks dropped. */
export const linesOf = (value: string | undefined) =>
  (value ?? '')
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter(Boolean);
const messageOf = (value: string | undefined) => (value ?? '').replace(/\r\n?/g, '\n');
/** A draft form's fields: its number and its text. */
const draftFields = (body: Ask['body']) => ({ to: body.to?.trim() ?? '', body: messageOf(body.body) });

/** What a pod's page shows: the pod, the organization's cells, the pod's drafts, lists, ignored numbers and jobs. */
async function podView({ dashboard }: ConsoleModule, { call, session, params }: Ask) {
  const ops = dashboard.pods;
  const pod = await call(ops.getPod, { id: params.pod_id });
  const scoped = { pod_id: pod.id, limit: PAGE };
  const [cells, { drafts }, { lists }, { ignored }, { jobs }] = await Promise.all([
    allCells(dashboard.cells, session.organizationId),
    call(ops.drafts.pod.list, { ...scoped, status: 'draft' }),
    call(ops.lists.pod.list, scoped),
    call(ops.ignore.pod.list, scoped),
    call(ops.listPodJobs, { pod_id: pod.id, limit: 10 }),
  ]);
  return { pod, cells, drafts, lists, ignored, jobs };
}
export type PodPageView = Awaited<ReturnType<typeof podView>>;

/** The section's binding; `missing`: what its 404 names. */
export const podsBinder = (scope: App, module: ConsoleModule, missing: string) =>
  consoleBinder(scope, module, { section: 'pods', back: { href: PODS_PATH, text: 'See your pods' }, missing });

export function registerPodPages(scope: App, module: ConsoleModule): void {
  const { dashboard } = module;
  const ops = dashboard.pods;
  const { events } = dashboard.eventing;
  const live = pageLive(scope, module);
  const bind = podsBinder(scope, module, 'pod');

  async function podsOf({ call, session, context }: Ask, cursor?: string, form?: Refusal): Promise<Html> {
    const page = await call(ops.listPods, { limit: PAGE, ...(cursor ? { cursor } : {}) });
    const cells = await allCells(dashboard.cells, session.organizationId);
    return podsPage(context, { pods: page.pods, nextCursor: page.next_cursor, cells, form });
  }

  /** The pod's page (with a form's errors). */
  const podOf = async (ask: Ask, forms: PodForms = {}) =>
    podPage(ask.context, { ...(await podView(module, ask)), forms });

  /** A form of the pod's page: one operation, then 303 back to its section, or the page with its errors. */
  function podForm(path: string, section: Exclude<keyof PodForms, 'quiet'>, run: (ask: Ask) => Promise<unknown>) {
    bind.post(`${POD}${path}`, {
      run: async (ask) => {
        const to = await run(ask);
        return typeof to === 'string' ? to : `${podPath(ask.params.pod_id)}#${section}`;
      },
      page: (ask, refusal) => podOf(ask, { [section]: refusal }),
      codeFields: { cell_in_pod: 'cell_ids' },
    });
  }

  bind.view(PODS_PATH, (ask) => podsOf(ask, ask.query.cursor || undefined));

  bind.form(PODS_PATH, ops.createPod, {
    input: ({ body }) => ({
      name: body.name?.trim() ?? '',
      client_id: body.client_id ?? '',
      cell_ids: cellIdsOf(body),
    }),
    page: (ask, refusal) => podsOf(ask, undefined, refusal),
    done: (_ask, { pod }) => podPath(pod.id),
    codeFields: { cell_in_pod: 'cell_ids' },
  });

  bind.view(POD, (ask) => podOf(ask));

  podForm('', 'edit', ({ call, params, body }) =>
    call(ops.updatePod, { id: params.pod_id, name: body.name?.trim() ?? '', cell_ids: cellIdsOf(body) }),
  );

  bind.post(`${POD}/quiet-hours`, {
    run: (ask) =>
      postQuietHours(
        ask,
        (quietHours) => ask.call(ops.updatePod, { id: ask.params.pod_id, quiet_hours: quietHours }),
        (quiet) => podOf(ask, { quiet }),
        podPath(ask.params.pod_id),
      ),
  });

  podForm('/drafts', 'drafts', ({ call, params, body }) =>
    call(ops.drafts.pod.create, { pod_id: params.pod_id, client_id: body.client_id ?? '', ...draftFields(body) }),
  );

  /** The draft's edit page, shown again with a save's errors. */
  const draftOf = async ({ call, context, params }: Ask, form?: Refusal) => {
    const pod = await call(ops.getPod, { id: params.pod_id });
    const draft = await call(ops.drafts.pod.get, { pod_id: params.pod_id, draft_id: params.draft_id });
    return draftPage(context, { pod, draft, form });
  };
  bind.view(`${POD}/drafts/:draft_id`, (ask) => draftOf(ask), { missing: 'draft' });
  bind.form(`${POD}/drafts/:draft_id`, ops.drafts.pod.update, {
    missing: 'draft',
    input: ({ params, body }) => ({ pod_id: params.pod_id, draft_id: params.draft_id, ...draftFields(body) }),
    page: draftOf,
    done: ({ params }) => `${podPath(params.pod_id)}#drafts`,
  });

  podForm('/drafts/:draft_id/send', 'drafts', ({ call, params }) => call(ops.drafts.pod.send, params));
  podForm('/drafts/:draft_id/discard', 'drafts', ({ call, params }) => call(ops.drafts.pod.discard, params));

  podForm('/lists', 'lists', ({ call, params, body }) =>
    call(ops.lists.pod.create, {
      pod_id: params.pod_id,
      name: body.name?.trim() ?? '',
      numbers: linesOf(body.numbers),
    }),
  );
  podForm('/lists/:list_id/delete', 'lists', ({ call, params }) => call(ops.lists.pod.remove, params));

  bind.view(`${POD}/delete`, async ({ call, context, params }) =>
    deletePodPage(context, await call(ops.getPod, { id: params.pod_id })),
  );
  bind.form(`${POD}/delete`, ops.deletePod, {
    input: ({ params }) => ({ id: params.pod_id }),
    page: (ask) => podOf(ask),
    done: () => PODS_PATH,
  });

  podForm('/ignore', 'ignore', ({ call, params, body }) =>
    call(ops.ignore.pod.add, { pod_id: params.pod_id, participant: body.participant?.trim() ?? '' }),
  );
  podForm('/ignore/remove', 'ignore', ({ call, params, body }) =>
    call(ops.ignore.pod.remove, { pod_id: params.pod_id, participant: body.participant ?? '' }),
  );

  podForm('/cycles', 'cycles', async ({ call, params, body }) => {
    const { mode = '', list_id: listId } = body;
    const message = messageOf(body.body);
    const to = linesOf(body.to);
    const started = await call(ops.startPodCycle, {
      pod_id: params.pod_id,
      mode,
      client_id: body.client_id ?? '',
      ...(message.trim() ? { body: message } : {}),
      ...(mode === 'broadcast' && listId ? { list_id: listId } : {}),
      ...(mode === 'broadcast' && !listId && to.length > 0 ? { to } : {}),
    });
    const job = 'job' in started ? started.job : started;
    return podPath(params.pod_id, 'jobs', job.id);
  });

  bind.view(
    `${POD}/jobs/:job_id`,
    async ({ call, context, params }) => {
      const after = await events.latestSeq();
      const pod = await call(ops.getPod, { id: params.pod_id });
      const job = await call(ops.getPodJob, params);
      const open = job.status === 'queued' || job.status === 'running';
      const liveUrl = open ? `${podPath(pod.id, 'jobs', job.id)}/live?after=${after}` : null;
      return jobPage(context, { pod, job, liveUrl });
    },
    { missing: 'job' },
  );

  bind.post(`${POD}/jobs/:job_id/cancel`, {
    missing: 'job',
    run: async ({ call, params }) => {
      // A job that ended meanwhile: its page says how.
      await call(ops.cancelPodJob, params).catch((error: unknown) => {
        if (!(error instanceof ApiError) || error.code !== 'conflict') throw error;
      });
      return podPath(params.pod_id, 'jobs', params.job_id);
    },
  });

  live.route(
    `${POD}/jobs/:job_id/live`,
    async (request, session) => {
      const { pod_id, job_id } = request.params as { pod_id: string; job_id: string };
      const call = bind.caller(session);
      const cells = new Set((await call(ops.getPod, { id: pod_id })).cell_ids);
      await call(ops.getPodJob, { pod_id, job_id });
      return {
        // The job's counts move with its cells' messages, and it ends with a cycle event.
        concerns: (envelope) =>
          envelope.type.startsWith('cycle.')
            ? (envelope.data as { id?: string }).id === job_id
            : envelope.type.startsWith('message.') && cells.has(String(envelope.data.cell_id)),
        render: () => ({ event: 'refresh', data: { announce: 'The counts changed.' } }),
      };
    },
    'No such job.',
  );
}
