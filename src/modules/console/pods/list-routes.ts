// A contact list's page under a pod: its numbers, and three forms, each one operation through
// invoke (rename, add numbers, remove numbers: 303 back to the list, or the page with that form's
// errors). An unknown or another organization's pod or list is a 404.
//   GET  /console/pods/:pod_id/lists/:list_id            the page; POST renames
//   POST /console/pods/:pod_id/lists/:list_id/add        add numbers; .../remove removes numbers
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../../http/types.ts';
import type { PodView } from '../../pods/views.ts';
import { HIDDEN, PUBLIC, text } from '../account/shared.ts';
import { consoleActor } from '../act.ts';
import { contextOf, redirect } from '../guard.ts';
import { CONSOLE_PATH, registerFormParser, sendPage } from '../http.ts';
import type { ConsoleModule } from '../module.ts';
import {
  formRefusal,
  isNotFound,
  linesOf,
  NO_NUMBERS,
  podNotFound,
  sessionOfPage,
  valuesOf,
  type Params,
} from './forms.ts';
import { contactListPage, type ContactList, type ListForms } from './list-page.ts';
import { listPath } from './pages.ts';

export function registerContactListPages(app: App, module: ConsoleModule): void {
  const { guard, dashboard } = module;
  const ops = dashboard.pods;
  const call = consoleActor(dashboard.invoker);
  const notFound = podNotFound;
  const sessionOf = (request: FastifyRequest, reply: FastifyReply, posted: boolean) =>
    sessionOfPage(guard, request, reply, posted);

  app.register(async (scope) => {
    registerFormParser(scope);
    const route = { config: PUBLIC, schema: HIDDEN };

    function listRoute(form: keyof ListForms | null) {
      return async (request: FastifyRequest, reply: FastifyReply) => {
        const session = await sessionOf(request, reply, form !== null);
        if (!session) return reply;
        const context = contextOf(session, 'pods');
        const { pod_id, list_id } = request.params as Params;
        const show = async (forms: ListForms, status: number) => {
          const pod = await call<PodView>(session, ops.getPod, { id: pod_id });
          const list = await call<ContactList>(session, ops.lists.pod.get, { pod_id, list_id });
          return sendPage(reply, status, contactListPage(context, { pod, list, forms }));
        };
        try {
          if (!form) return await show({}, 200);
          const scoped = { pod_id, list_id };
          try {
            const numbers = linesOf(text(request.body, 'numbers'));
            // The API takes an empty change (nothing to do); a form sent empty is a mistake to point out.
            if (form !== 'rename' && numbers.length === 0)
              return await show({ [form]: { values: valuesOf(request.body), errors: { numbers: NO_NUMBERS } } }, 400);
            if (form === 'rename')
              await call(session, ops.lists.pod.rename, { ...scoped, name: text(request.body, 'name').trim() });
            else
              await call(session, form === 'add' ? ops.lists.pod.addNumbers : ops.lists.pod.removeNumbers, {
                ...scoped,
                numbers,
              });
          } catch (error) {
            const refused = formRefusal(error, valuesOf(request.body));
            if (!refused) throw error;
            return await show({ [form]: refused.form }, refused.status);
          }
          return await redirect(
            reply,
            `${listPath(context, pod_id, list_id ?? '')}#${form === 'rename' ? 'rename' : 'numbers'}`,
          );
        } catch (error) {
          if (isNotFound(error)) return notFound(reply, context, 'List');
          throw error;
        }
      };
    }
    scope.get(`${CONSOLE_PATH}/pods/:pod_id/lists/:list_id`, route, listRoute(null));
    scope.post(`${CONSOLE_PATH}/pods/:pod_id/lists/:list_id`, route, listRoute('rename'));
    scope.post(`${CONSOLE_PATH}/pods/:pod_id/lists/:list_id/add`, route, listRoute('add'));
    scope.post(`${CONSOLE_PATH}/pods/:pod_id/lists/:list_id/remove`, route, listRoute('remove'));
  });
}
