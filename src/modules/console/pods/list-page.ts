// A contact list's page (routes in list-routes.ts): its numbers, each with a Remove button (the
// first 1,000), and its three forms: rename, add numbers, remove several.
import { html, type Html } from '../../../lib/html.ts';
import { csrfField, postButton } from '../account/shared.ts';
import { phone } from '../conversations/format.ts';
import type { SignedInContext } from '../guard.ts';
import { field, layout } from '../layout.ts';
import type { PodView } from '../../pods/views.ts';
import { crumbs, failed, formNotice, listPath, podPath, textArea, type FormState, type ListSummary } from './pages.ts';

export type ContactList = ListSummary & { numbers: string[] };

/** A contact list's page shows at most this many of its numbers (a list holds up to 10,000). */
export const LIST_NUMBERS_SHOWN = 1_000;

/** The forms of a list's page, each with what was typed and its errors. */
export interface ListForms {
  rename?: FormState;
  add?: FormState;
  remove?: FormState;
}

export function contactListPage(
  context: SignedInContext,
  view: { pod: PodView; list: ContactList; forms?: ListForms },
): Html {
  const { pod, list } = view;
  const forms = view.forms ?? {};
  const base = listPath(context, pod.id, list.id);
  const shown = list.numbers.slice(0, LIST_NUMBERS_SHOWN);
  const numbers =
    list.numbers.length === 0
      ? html`<p class="small">No numbers yet.</p>`
      : html`${list.numbers.length > shown.length ? html`<p class="small">The first ${shown.length.toLocaleString('en-US')} of ${list.numbers.length.toLocaleString('en-US')} numbers.</p>` : ''}<ul class="plain-list">${shown.map((number) => html`<li><span class="mono">${phone(number)}</span> ${postButton(context, `${base}/remove`, 'Remove', { className: 'secondary', ariaLabel: `Remove ${phone(number)}`, fields: { numbers: number } })}</li>`)}</ul>`;
  const anyError = [forms.rename, forms.add, forms.remove].some(failed);
  return layout(
    { ...context, current: 'pods' },
    `${anyError ? 'Error: ' : ''}${list.name} — ${pod.name}`,
    html`<div class="card wide">
${crumbs(context, pod, list.name)}
<h1>${list.name}</h1>
<p class="small">${list.number_count.toLocaleString('en-US')} ${list.number_count === 1 ? 'number' : 'numbers'}. A list holds at most 10,000.</p>
<section id="rename" aria-labelledby="rename-heading">
<h2 id="rename-heading">Name</h2>
${formNotice(forms.rename)}
<form method="post" action="${base}" novalidate>
${csrfField(context)}
${field({ id: 'list-name', name: 'name', label: 'List name', type: 'text', value: forms.rename?.values.name ?? list.name, error: forms.rename?.errors.name, attributes: html`maxlength="100" autocomplete="off"` })}
<div class="actions"><button type="submit" class="primary">Rename</button></div>
</form>
</section>
<section id="add" aria-labelledby="add-heading">
<h2 id="add-heading">Add numbers</h2>
${formNotice(forms.add)}
<form method="post" action="${base}/add" novalidate>
${csrfField(context)}
${textArea({ id: 'add-numbers', name: 'numbers', label: 'Numbers to add', value: forms.add?.values.numbers, hint: 'One per line, in international form. Numbers already on the list are skipped.', error: forms.add?.errors.numbers, rows: 4 })}
<div class="actions"><button type="submit" class="primary">Add</button></div>
</form>
</section>
<section id="numbers" aria-labelledby="numbers-heading">
<h2 id="numbers-heading">Numbers</h2>
${numbers}
<h3>Remove several</h3>
${formNotice(forms.remove)}
<form method="post" action="${base}/remove" novalidate>
${csrfField(context)}
${textArea({ id: 'remove-numbers', name: 'numbers', label: 'Numbers to remove', value: forms.remove?.values.numbers, hint: 'One per line. Numbers not on the list are skipped.', error: forms.remove?.errors.numbers, rows: 3 })}
<div class="actions"><button type="submit" class="secondary">Remove</button></div>
</form>
</section>
<p class="after"><a href="${podPath(context, pod.id)}#lists">Back to ${pod.name}</a></p>
</div>`,
  );
}
