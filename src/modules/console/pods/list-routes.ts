// A contact list's page under a pod: its numbers, and three forms, each one operation through
// invoke (rename, add numbers, remove numbers: 303 back to the list, or the page with that form's
// errors). An unknown or another organization's pod or list is a 404.
//   GET  /console/pods/:pod_id/lists/:list_id            the page; POST renames
//   POST /console/pods/:pod_id/lists/:list_id/add        add numbers; .../remove removes numbers
import type { App } from '../../../http/types.ts';
import { FormRefusal, type Ask } from '../binder.ts';
import type { ConsoleModule } from '../module.ts';
import { contactListPage, podPath, PODS_PATH, type ListForms } from './pages.ts';
import { linesOf, podsBinder } from './routes.ts';

const LIST_PATH = `${PODS_PATH}/:pod_id/lists/:list_id`;

export function registerContactListPages(scope: App, module: ConsoleModule): void {
  const ops = module.dashboard.pods;
  const bind = podsBinder(scope, module, 'list');

  const listOf = async ({ call, context, params }: Ask, forms: ListForms = {}) => {
    const pod = await call(ops.getPod, { id: params.pod_id });
    const list = await call(ops.lists.pod.get, { pod_id: params.pod_id, list_id: params.list_id });
    return contactListPage(context, { pod, list, forms });
  };
  const back = ({ params }: Ask, anchor: string) => `${podPath(params.pod_id, 'lists', params.list_id)}#${anchor}`;

  bind.view(LIST_PATH, (ask) => listOf(ask));

  bind.form(LIST_PATH, ops.lists.pod.rename, {
    input: ({ params, body }) => ({ pod_id: params.pod_id, list_id: params.list_id, name: body.name?.trim() ?? '' }),
    page: (ask, rename) => listOf(ask, { rename }),
    done: (ask) => back(ask, 'rename'),
  });

  for (const form of ['add', 'remove'] as const)
    bind.form(`${LIST_PATH}/${form}`, form === 'add' ? ops.lists.pod.addNumbers : ops.lists.pod.removeNumbers, {
      input: ({ params, body }) => {
        const numbers = linesOf(body.numbers);
        // The API takes an empty change (nothing to do); a form sent empty is a mistake to point out.
        if (numbers.length === 0) throw new FormRefusal({ numbers: 'Enter at least one number, one per line.' });
        return { pod_id: params.pod_id, list_id: params.list_id, numbers };
      },
      page: (ask, refusal) => listOf(ask, { [form]: refusal }),
      done: (ask) => back(ask, 'numbers'),
    });
}
