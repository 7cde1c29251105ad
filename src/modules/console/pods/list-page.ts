// A contact list's page (routes in list-routes.ts): its numbers, each with a Remove button (the
// first 1,000), and its three forms: rename, add numbers, remove several.
import { html, type Html } from '../../../lib/html.ts';
import { postButton } from '../account/shared.ts';
import { phone } from '../conversations/format.ts';
import { section } from '../conversations/pages.ts';
import type { SignedInContext } from '../guard.ts';
import { layout } from '../layout.ts';
import type { listView, PodView } from '../../pods/views.ts';
import { failed, NAME, podArea, podCrumbs, podField, podForm, podPath, type FormState } from './pages.ts';

/** A contact list's page shows at most this many of its numbers (a list holds up to 10,000). */
const LIST_NUMBERS_SHOWN = 1_000;

/** The forms of a list's page, each with what was typed and its errors. */
export type ListForms = Partial<Record<'rename' | 'add' | 'remove', FormState>>;

export function contactListPage(
  context: SignedInContext,
  view: { pod: PodView; list: ReturnType<typeof listView>; forms?: ListForms },
): Html {
  const { pod, list } = view;
  const { rename, add, remove } = view.forms ?? {};
  const base = podPath(pod.id, 'lists', list.id);
  const shown = list.numbers.slice(0, LIST_NUMBERS_SHOWN);
  const count = (n: number) => n.toLocaleString('en-US');
  const numbers =
    list.numbers.length === 0
      ? html`<p class="small">No numbers yet.</p>`
      : html`${list.numbers.length > shown.length && html`<p class="small">The first ${count(shown.length)} of ${count(list.numbers.length)} numbers.</p>`}<ul class="plain-list">${shown.map((number) => html`<li><span class="mono">${phone(number)}</span> ${postButton(context, `${base}/remove`, 'Remove', { ariaLabel: `Remove ${phone(number)}`, fields: { numbers: number } })}</li>`)}</ul>`;
  return layout(
    context,
    `${[rename, add, remove].some(failed) ? 'Error: ' : ''}${list.name} — ${pod.name}`,
    html`<div class="card wide">
${podCrumbs(pod, list.name)}
<h1>${list.name}</h1>
<p class="small">${count(list.number_count)} ${list.number_count === 1 ? 'number' : 'numbers'}. A list holds at most 10,000.</p>
${section('rename', 'Name', podForm(context, rename, { action: base, button: 'Rename' }, podField(rename, { id: 'list-name', name: 'name', label: 'List name', type: 'text', value: rename?.values.name ?? list.name, attributes: NAME })))}
${section('add', 'Add numbers', podForm(context, add, { action: `${base}/add`, button: 'Add' }, podArea(add, { id: 'add-numbers', name: 'numbers', label: 'Numbers to add', hint: 'One per line, in international form. Numbers already on the list are skipped.', rows: 4 })))}
${section('numbers', 'Numbers', [numbers, html`\n<h3>Remove several</h3>\n`, podForm(context, remove, { action: `${base}/remove`, button: 'Remove', tone: 'secondary' }, podArea(remove, { id: 'remove-numbers', name: 'numbers', label: 'Numbers to remove', hint: 'One per line. Numbers not on the list are skipped.' }))])}
<p class="after"><a href="${podPath(pod.id)}#lists">Back to ${pod.name}</a></p>
</div>`,
  );
}
