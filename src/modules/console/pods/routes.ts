// The Pods section, every read and write through the pods operations (invoke, as the console's
// principal), so what it allows and refuses is what the API would:
//   GET  /console/pods                                   list, create form
//   POST /console/pods                                   create (client_id minted with the form)
//   GET  /console/pods/:pod_id                           the pod's page
//   POST /console/pods/:pod_id                           rename, replace its cells
//   POST /console/pods/:pod_id/quiet-hours               set or clear quiet hours
//   POST /console/pods/:pod_id/drafts                    new draft
//   GET  /console/pods/:pod_id/drafts/:draft_id          edit page; POST saves
//   POST /console/pods/:pod_id/drafts/:draft_id/send     send; .../discard deletes
//   GET  /console/pods/:pod_id/delete                    confirm deleting the pod; POST deletes
//   POST /console/pods/:pod_id/lists                     new contact list; .../lists/:list_id/delete
//   GET  /console/pods/:pod_id/lists/:list_id            the list's page (list-routes.ts)
//   POST /console/pods/:pod_id/ignore                    ignore a number; .../ignore/remove
//   POST /console/pods/:pod_id/cycles                    start a ring or broadcast, 303 to its job
//   GET  /console/pods/:pod_id/jobs/:job_id              the job's progress (live); POST .../cancel
//   GET  /console/pods/:pod_id/jobs/:job_id/live         Server-Sent Events: the counts changed
// Another organization's pod (or draft, list, job) is 404 like an unknown one.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../../http/types.ts';
import { ApiError } from '../../../lib/errors.ts';
import type { DraftView, JobView, PodView } from '../../pods/views.ts';
import { HIDDEN, orPage, PUBLIC, text } from '../account/shared.ts';
import { afterOf, pageLive, plainAnswer } from '../conversations/live.ts';
import { consoleActor } from '../act.ts';
import { contextOf, redirect } from '../guard.ts';
import { CONSOLE_PATH, registerFormParser, sendPage } from '../http.ts';
import { allCells } from '../messages/routes.ts';
import type { ConsoleModule } from '../module.ts';
import { hasQuietErrors, quietErrorsOf, readQuietHours } from '../quiet-hours.ts';
import type { ConsoleSession } from '../service.ts';
import {
  deletePodPage,
  draftPage,
  jobPage,
  jobPath,
  podPage,
  podPath,
  podsPage,
  podsPath,
  type FormState,
  type Ignored,
  type ListSummary,
  type PodForms,
} from './pages.ts';
import {
  cellIdsOf,
  formRefusal,
  isNotFound,
  linesOf,
  podNotFound,
  sessionOfPage,
  valuesOf,
  type Params,
} from './forms.ts';

const PAGE = 50;

export function registerPodPages(app: App, module: ConsoleModule): void {
  const { guard, dashboard } = module;
  const ops = dashboard.pods;
  const { events } = dashboard.eventing;
  const live = pageLive(app, module);

  const call = consoleActor(dashboard.invoker);

  const notFound = podNotFound;
  const sessionOf = (request: FastifyRequest, reply: FastifyReply, posted: boolean) =>
    sessionOfPage(guard, request, reply, posted);

  async function showPods(
    reply: FastifyReply,
    session: ConsoleSession,
    cursor: string | undefined,
    form?: FormState,
    status = 200,
  ) {
    const context = contextOf(session, 'pods');
    const page = await orPage(reply, context, { href: `${CONSOLE_PATH}/pods`, text: 'See your pods' }, 'pod', () =>
      call<{ pods: PodView[]; next_cursor: string | null }>(session, ops.listPods, {
        limit: PAGE,
        ...(cursor ? { cursor } : {}),
      }),
    );
    if (!page) return reply;
    const cells = await allCells(dashboard.cells, session.organizationId);
    return sendPage(reply, status, podsPage(context, { pods: page.pods, nextCursor: page.next_cursor, cells, form }));
  }

  /** The pod's page (with a form's errors); 404 when the pod is not the organization's. */
  async function showPod(
    reply: FastifyReply,
    session: ConsoleSession,
    podId: string,
    forms: PodForms = {},
    status = 200,
  ) {
    const context = contextOf(session, 'pods');
    let pod: PodView;
    try {
      pod = await call<PodView>(session, ops.getPod, { id: podId });
    } catch (error) {
      if (isNotFound(error)) return notFound(reply, context);
      throw error;
    }
    const scoped = { pod_id: pod.id, limit: PAGE };
    const [cells, drafts, lists, ignored, jobs] = await Promise.all([
      allCells(dashboard.cells, session.organizationId),
      call<{ drafts: DraftView[] }>(session, ops.drafts.pod.list, { ...scoped, status: 'draft' }),
      call<{ lists: ListSummary[] }>(session, ops.lists.pod.list, scoped),
      call<{ ignored: Ignored[] }>(session, ops.ignore.pod.list, scoped),
      call<{ jobs: JobView[] }>(session, ops.listPodJobs, { pod_id: pod.id, limit: 10 }),
    ]);
    return sendPage(
      reply,
      status,
      podPage(context, {
        pod,
        cells,
        drafts: drafts.drafts,
        lists: lists.lists,
        ignored: ignored.ignored,
        jobs: jobs.jobs,
        forms,
      }),
    );
  }

  /**
   * A pod form's post: the session (CSRF), the operation, then 303 back to the pod's section; a
   * refusal shows the pod's page with that form's errors; an unknown pod (or item) is a 404.
   */
  function podForm(
    section: keyof PodForms,
    act: (session: ConsoleSession, params: Params, body: unknown) => Promise<string | void>,
  ) {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      const params = request.params as Params;
      try {
        const to = await act(session, params, request.body);
        return redirect(
          reply,
          to ??
            `${podPath(contextOf(session), params.pod_id)}#${section === 'edit' ? 'edit' : section === 'cycle' ? 'cycles' : section === 'list' ? 'lists' : section === 'draft' ? 'drafts' : section}`,
        );
      } catch (error) {
        if (isNotFound(error)) return notFound(reply, contextOf(session, 'pods'));
        const refused = formRefusal(error, valuesOf(request.body));
        if (!refused) throw error;
        return showPod(reply, session, params.pod_id, { [section]: refused.form }, refused.status);
      }
    };
  }

  app.register(async (scope) => {
    registerFormParser(scope);
    const route = { config: PUBLIC, schema: HIDDEN };

    scope.get(`${CONSOLE_PATH}/pods`, route, async (request, reply) => {
      const session = await guard.page(request, reply);
      if (!session) return reply;
      return showPods(reply, session, text(request.query, 'cursor') || undefined);
    });

    scope.post(`${CONSOLE_PATH}/pods`, route, async (request, reply) => {
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      const values = valuesOf(request.body);
      try {
        const { pod } = await call<{ pod: PodView }>(session, ops.createPod, {
          name: values.name?.trim() ?? '',
          client_id: values.client_id ?? '',
          cell_ids: cellIdsOf(request.body),
        });
        return redirect(reply, podPath(contextOf(session), pod.id));
      } catch (error) {
        const refused = formRefusal(error, values);
        if (!refused) throw error;
        return showPods(reply, session, undefined, refused.form, refused.status);
      }
    });

    scope.get(`${CONSOLE_PATH}/pods/:pod_id`, route, async (request, reply) => {
      const session = await guard.page(request, reply);
      if (!session) return reply;
      return showPod(reply, session, (request.params as Params).pod_id);
    });

    scope.post(
      `${CONSOLE_PATH}/pods/:pod_id`,
      route,
      podForm('edit', async (session, { pod_id }, body) => {
        await call(session, ops.updatePod, { id: pod_id, name: text(body, 'name').trim(), cell_ids: cellIdsOf(body) });
      }),
    );

    scope.post(`${CONSOLE_PATH}/pods/:pod_id/quiet-hours`, route, async (request, reply) => {
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      const { pod_id } = request.params as Params;
      const read = readQuietHours(request.body);
      if (!read.clear && hasQuietErrors(read.form)) return showPod(reply, session, pod_id, { quiet: read.form }, 400);
      try {
        await call(session, ops.updatePod, { id: pod_id, quiet_hours: read.clear ? null : read.form.values });
      } catch (error) {
        if (isNotFound(error)) return notFound(reply, contextOf(session, 'pods'));
        const refused = read.clear ? null : quietErrorsOf(error, read.form);
        if (!refused) throw error;
        return showPod(reply, session, pod_id, { quiet: refused }, 400);
      }
      return redirect(reply, `${podPath(contextOf(session), pod_id)}#quiet-hours`);
    });

    scope.post(
      `${CONSOLE_PATH}/pods/:pod_id/drafts`,
      route,
      podForm('draft', async (session, { pod_id }, body) => {
        await call(session, ops.drafts.pod.create, {
          pod_id,
          client_id: text(body, 'client_id'),
          to: text(body, 'to').trim(),
          body: text(body, 'body').replace(/\r\n?/g, '\n'),
        });
      }),
    );

    /**
     * The draft's edit page: shown (GET), or saved (POST: 303 back to the pod, or the page with the
     * errors). An unknown or another organization's pod or draft is a 404.
     */
    async function draftRoute(request: FastifyRequest, reply: FastifyReply, save: boolean) {
      const session = await sessionOf(request, reply, save);
      if (!session) return reply;
      const context = contextOf(session, 'pods');
      const { pod_id, draft_id } = request.params as Params;
      try {
        const pod = await call<PodView>(session, ops.getPod, { id: pod_id });
        const draft = await call<DraftView>(session, ops.drafts.pod.get, { pod_id, draft_id });
        if (!save) return await sendPage(reply, 200, draftPage(context, { pod, draft }));
        try {
          await call(session, ops.drafts.pod.update, {
            pod_id,
            draft_id,
            to: text(request.body, 'to').trim(),
            body: text(request.body, 'body').replace(/\r\n?/g, '\n'),
          });
        } catch (error) {
          const refused = formRefusal(error, valuesOf(request.body));
          if (!refused) throw error;
          return await sendPage(reply, refused.status, draftPage(context, { pod, draft, form: refused.form }));
        }
        return await redirect(reply, `${podPath(context, pod.id)}#drafts`);
      } catch (error) {
        if (isNotFound(error)) return notFound(reply, context, 'Draft');
        throw error;
      }
    }
    scope.get(`${CONSOLE_PATH}/pods/:pod_id/drafts/:draft_id`, route, (request, reply) =>
      draftRoute(request, reply, false),
    );
    scope.post(`${CONSOLE_PATH}/pods/:pod_id/drafts/:draft_id`, route, (request, reply) =>
      draftRoute(request, reply, true),
    );

    scope.post(
      `${CONSOLE_PATH}/pods/:pod_id/drafts/:draft_id/send`,
      route,
      podForm('draft', async (session, { pod_id, draft_id }) => {
        await call(session, ops.drafts.pod.send, { pod_id, draft_id });
      }),
    );

    scope.post(
      `${CONSOLE_PATH}/pods/:pod_id/drafts/:draft_id/discard`,
      route,
      podForm('draft', async (session, { pod_id, draft_id }) => {
        await call(session, ops.drafts.pod.discard, { pod_id, draft_id });
      }),
    );

    scope.post(
      `${CONSOLE_PATH}/pods/:pod_id/lists`,
      route,
      podForm('list', async (session, { pod_id }, body) => {
        await call(session, ops.lists.pod.create, {
          pod_id,
          name: text(body, 'name').trim(),
          numbers: linesOf(text(body, 'numbers')),
        });
      }),
    );

    scope.get(`${CONSOLE_PATH}/pods/:pod_id/delete`, route, async (request, reply) => {
      const session = await guard.page(request, reply);
      if (!session) return reply;
      const context = contextOf(session, 'pods');
      try {
        const pod = await call<PodView>(session, ops.getPod, { id: (request.params as Params).pod_id });
        return await sendPage(reply, 200, deletePodPage(context, pod));
      } catch (error) {
        if (isNotFound(error)) return notFound(reply, context);
        throw error;
      }
    });

    scope.post(`${CONSOLE_PATH}/pods/:pod_id/delete`, route, async (request, reply) => {
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      const context = contextOf(session, 'pods');
      try {
        await call(session, ops.deletePod, { id: (request.params as Params).pod_id });
      } catch (error) {
        if (isNotFound(error)) return notFound(reply, context);
        throw error;
      }
      return redirect(reply, podsPath(context));
    });

    scope.post(
      `${CONSOLE_PATH}/pods/:pod_id/lists/:list_id/delete`,
      route,
      podForm('list', async (session, { pod_id, list_id }) => {
        await call(session, ops.lists.pod.remove, { pod_id, list_id });
      }),
    );

    scope.post(
      `${CONSOLE_PATH}/pods/:pod_id/ignore`,
      route,
      podForm('ignore', async (session, { pod_id }, body) => {
        await call(session, ops.ignore.pod.add, { pod_id, participant: text(body, 'participant').trim() });
      }),
    );

    scope.post(
      `${CONSOLE_PATH}/pods/:pod_id/ignore/remove`,
      route,
      podForm('ignore', async (session, { pod_id }, body) => {
        await call(session, ops.ignore.pod.remove, { pod_id, participant: text(body, 'participant') });
      }),
    );

    scope.post(
      `${CONSOLE_PATH}/pods/:pod_id/cycles`,
      route,
      podForm('cycle', async (session, { pod_id }, body) => {
        const mode = text(body, 'mode');
        const message = text(body, 'body').replace(/\r\n?/g, '\n');
        const listId = text(body, 'list_id');
        const to = linesOf(text(body, 'to'));
        const started = await call<{ job: JobView } | JobView>(session, ops.startPodCycle, {
          pod_id,
          mode,
          client_id: text(body, 'client_id'),
          ...(message.trim() ? { body: message } : {}),
          ...(mode === 'broadcast' && listId ? { list_id: listId } : {}),
          ...(mode === 'broadcast' && !listId && to.length > 0 ? { to } : {}),
        });
        const job = 'job' in started ? started.job : started;
        return jobPath(contextOf(session), pod_id, job.id);
      }),
    );

    scope.get(`${CONSOLE_PATH}/pods/:pod_id/jobs/:job_id`, route, async (request, reply) => {
      const session = await guard.page(request, reply);
      if (!session) return reply;
      const context = contextOf(session, 'pods');
      const { pod_id, job_id } = request.params as Params;
      try {
        const after = await events.latestSeq();
        const pod = await call<PodView>(session, ops.getPod, { id: pod_id });
        const job = await call<JobView>(session, ops.getPodJob, { pod_id, job_id });
        const open = job.status === 'queued' || job.status === 'running';
        const liveUrl = open ? `${jobPath(context, pod.id, job.id)}/live?after=${after}` : null;
        return sendPage(reply, 200, jobPage(context, { pod, job, liveUrl }));
      } catch (error) {
        if (isNotFound(error)) return notFound(reply, context, 'Job');
        throw error;
      }
    });

    scope.post(`${CONSOLE_PATH}/pods/:pod_id/jobs/:job_id/cancel`, route, async (request, reply) => {
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      const context = contextOf(session, 'pods');
      const { pod_id, job_id } = request.params as Params;
      try {
        await call(session, ops.cancelPodJob, { pod_id, job_id });
      } catch (error) {
        if (isNotFound(error)) return notFound(reply, context, 'Job');
        if (!(error instanceof ApiError) || error.code !== 'conflict') throw error;
      }
      return redirect(reply, jobPath(context, pod_id, job_id ?? ''));
    });

    scope.get(`${CONSOLE_PATH}/pods/:pod_id/jobs/:job_id/live`, route, async (request, reply) => {
      const session = await guard.session(request);
      const plain = (status: number, message: string) => plainAnswer(reply, status, message);
      if (!session) return plain(401, 'Sign in to the console first.');
      const { pod_id, job_id } = request.params as Params;
      let pod: PodView;
      try {
        pod = await call<PodView>(session, ops.getPod, { id: pod_id });
        await call<JobView>(session, ops.getPodJob, { pod_id, job_id });
      } catch (error) {
        if (isNotFound(error)) return plain(404, 'No such job.');
        throw error;
      }
      const after = afterOf(request);
      if (after === 'invalid') return plain(400, 'after must be an event position from the page.');
      const cells = new Set(pod.cell_ids);
      await live.open(request, reply, {
        organizationId: session.organizationId,
        cellId: null,
        // The job's counts move with its cells' messages, and it ends with a cycle event.
        concerns: (envelope) =>
          envelope.type.startsWith('cycle.')
            ? (envelope.data as { id?: string }).id === job_id
            : envelope.type.startsWith('message.') && cells.has(String(envelope.data.cell_id)),
        after,
        render: () => ({ event: 'refresh', data: { announce: 'The counts changed.' } }),
      });
      return reply;
    });
  });
}
