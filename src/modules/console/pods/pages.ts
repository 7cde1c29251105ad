// The Pods section's HTML: the pods list with a create form; a pod's page (its cells and name,
// quiet hours, drafts, contact lists, ignored numbers, a ring or broadcast form, its jobs); a
// draft's edit page; a job's progress (live); a contact list's page (its numbers, each with a
// Remove button, and its rename, add and remove forms). Each form shows its own errors on its fields.
import { html, type Html, type HtmlValue } from '../../../lib/html.ts';
import type { QuietHours } from '../../../lib/quiet-hours.ts';
import { randomBase62 } from '../../../lib/secrets.ts';
import type { CellView } from '../../cells/service.ts';
import type { DraftView, JobView, listView, PodView } from '../../pods/views.ts';
import { capitalized, choiceBox, fieldset, nextPage, postButton, stateTag } from '../account/shared.ts';
import type { Refusal } from '../binder.ts';
import { phone, time } from '../conversations/format.ts';
import { liveStatus, SCRIPTS } from '../conversations/pages.ts';
import { dataTable } from '../data-table.ts';
import type { SignedInContext } from '../guard.ts';
import { CONSOLE_PATH } from '../http.ts';
import {
  crumbs,
  errorNotice,
  facts,
  field,
  hidden,
  layout,
  postForm,
  section,
  selectField,
  textArea,
} from '../layout.ts';
import { confirmationPage } from '../pages.ts';
import { quietHoursSection, type QuietHoursForm } from '../quiet-hours.ts';
import type { PodPageView } from './routes.ts';

/** What a form shows again: the values typed and the errors by field; `notice` for the form as a whole. */
export type FormState = Pick<Refusal, 'values' | 'errors' | 'notice'>;
export const failed = (form?: { errors: object; notice?: string }) =>
  Boolean(form && (form.notice || Object.keys(form.errors).length > 0));

export const PODS_PATH = `${CONSOLE_PATH}/pods`;
const PODS_CRUMB = [PODS_PATH, 'Pods'] as const;
/** A pod's page, or a page under it: `podPath(podId, 'jobs', jobId)`. */
export const podPath = (...path: string[]) => `${PODS_PATH}/${path.map(encodeURIComponent).join('/')}`;

/** The breadcrumb of a page under a pod. */
export const podCrumbs = (pod: PodView, here: string) => crumbs([PODS_CRUMB, [podPath(pod.id), pod.name]], here);

/** A pod form: its refusal's notice, then the form with what was typed. */
export const podForm = (
  context: SignedInContext,
  form: FormState | undefined,
  options: Parameters<typeof postForm>[1],
  content: HtmlValue,
) => html`${errorNotice(form?.notice)}
${postForm(context, options, content)}`;

/** A text field of a pod form, with what was typed and its error. */
export const podField = (form: FormState | undefined, options: Parameters<typeof field>[0]) =>
  field({ value: form?.values[options.name], error: form?.errors[options.name], ...options });
/** A text area of a pod form, with what was typed and its error. */
export const podArea = (form: FormState | undefined, options: Parameters<typeof textArea>[0]) =>
  textArea({ value: form?.values[options.name], error: form?.errors[options.name], ...options });
export const NAME = html`maxlength="100" autocomplete="off"`;
const PHONE = html`autocomplete="off" spellcheck="false" maxlength="64"`;
/** The key a rendered create form sends with, kept when it is shown again: a double submit creates once. */
const clientId = (form?: FormState) => hidden('client_id', form?.values.client_id || randomBase62(22));
/** The chosen cells of a pod form (cell_0, cell_1, ... checkboxes: distinct names, the form parser refuses repeats). */
export const cellIdsOf = (fields: Record<string, string>) =>
  Object.entries(fields).flatMap(([k, v]) => (/^cell_\d+$/.test(k) ? [v] : []));

/** Checkboxes of the organization's cells. */
const cellChoices = (cells: readonly CellView[], chosen: readonly string[], error?: string) =>
  fieldset({ id: 'pod-cells', legend: 'Cells', error }, [
    html`<span class="hint">A cell is in at most one pod.</span>`,
    cells.length === 0 && html`<p class="small">No cells yet.</p>`,
    cells.map((cell, i) =>
      choiceBox({
        type: 'checkbox',
        id: `pod-cells-${i}`,
        name: `cell_${i}`,
        value: cell.id,
        checked: chosen.includes(cell.id),
        label: html`${cell.display_name}${cell.phone_number && html` <span class="small mono">${phone(cell.phone_number)}</span>`}`,
      }),
    ),
  ]);

const NONE = html`<span class="small">None</span>`;

export function podsPage(
  context: SignedInContext,
  view: { pods: PodView[]; nextCursor: string | null; cells: CellView[]; form?: FormState },
): Html {
  const { form, nextCursor } = view;
  const names = new Map(view.cells.map((cell) => [cell.id, cell.display_name]));
  const table = dataTable({
    caption: `The pods of ${context.signedIn.organizationName}.`,
    columns: [
      { label: 'Pod', value: (pod) => html`<a href="${podPath(pod.id)}">${pod.name}</a>` },
      { label: 'Cells', value: (pod) => pod.cell_ids.map((id) => names.get(id) ?? id).join(', ') || NONE },
      { label: 'Quiet hours', value: ({ quiet_hours: q }) => (q ? `${q.start}–${q.end} ${q.time_zone}` : NONE) },
    ],
    rows: view.pods,
    empty: 'No pods yet.',
    more: nextPage(PODS_PATH, nextCursor, 'More pods'),
  });
  const fields = html`${clientId(form)}
${podField(form, { id: 'pod-name', name: 'name', label: 'Pod name', type: 'text', hint: 'Up to 100 characters, like Outreach.', attributes: NAME })}
${cellChoices(view.cells, form ? cellIdsOf(form.values) : [], form?.errors.cell_ids)}`;
  return layout(
    context,
    `${failed(form) ? 'Error: ' : ''}Pods`,
    html`<div class="card wide">
<h1>Pods</h1>
<p class="lead">A pod is a pool of your cells that send together: drafts sent from whichever cell a person already talks to, rings and broadcasts.</p>
${table}
${section('new-pod', 'Create a pod', podForm(context, form, { action: PODS_PATH, button: 'Create pod' }, fields))}
</div>`,
  );
}

/** The forms of a pod's page, each with what was typed and its errors. */
export type PodForms = Partial<Record<'edit' | 'drafts' | 'lists' | 'ignore' | 'cycles', FormState>> & {
  quiet?: QuietHoursForm;
};

const JOB_TONE = { completed: 'ok', failed: 'bad', canceled: 'idle' } as const;
const jobStatus = (job: JobView) =>
  stateTag(JOB_TONE[job.status as keyof typeof JOB_TONE] ?? 'warn', capitalized(job.status));

/** The Cancel button is a live part: when the job ends while the page is open, the live view drops it. */
export function jobPage(context: SignedInContext, view: { pod: PodView; job: JobView; liveUrl: string | null }): Html {
  const { pod, job } = view;
  const { counts } = job;
  const done = counts.sent + counts.delivered + counts.received + counts.failed + counts.skipped;
  const open = job.status === 'queued' || job.status === 'running';
  return layout(
    { ...context, scripts: SCRIPTS },
    `${capitalized(job.mode)} of ${pod.name}`,
    html`<div class="card wide">
${podCrumbs(pod, capitalized(job.mode))}
<h1>${capitalized(job.mode)} of ${pod.name}</h1>
${liveStatus(view.liveUrl, 'Reload the page to see the counts change.', 'Live: the counts change as the phones report.')}
<div id="job-progress" data-live-part>
<p>${jobStatus(job)} <progress max="${Math.max(counts.total, 1)}" value="${Math.min(done, counts.total)}" aria-label="Messages handled">${done} of ${counts.total}</progress> ${done} of ${counts.total} handled</p>
${facts([
  ['Waiting or queued', counts.queued],
  ['Sent', counts.sent],
  ['Delivered', counts.delivered],
  job.mode === 'ring' && ['Received by the next cell', counts.received],
  ['Failed', counts.failed],
  job.mode === 'broadcast' && ['Skipped (texted STOP)', counts.skipped],
  ['Started', time(job.created_at)],
  Boolean(job.send_at) && ['Scheduled for', time(job.send_at ?? '')],
  ['Ended', job.completed_at ? time(job.completed_at) : 'Not yet'],
])}
</div>
<div id="job-actions" data-live-part>${open && postButton(context, `${podPath(pod.id, 'jobs', job.id)}/cancel`, 'Cancel the job', { className: 'danger' })}</div>
</div>`,
  );
}

/** The draft form: new (with its client_id) or an edit. */
function draftForm(context: SignedInContext, action: string, form: FormState | undefined, isNew: boolean): Html {
  const fields = html`${isNew && clientId(form)}
${podField(form, { id: 'draft-to', name: 'to', label: 'To', type: 'tel', hint: 'In international form, like +14155550123.', attributes: PHONE })}
${podArea(form, { id: 'draft-body', name: 'body', label: 'Message', hint: 'Up to 1600 characters.' })}`;
  return podForm(context, form, { action, button: 'Save draft' }, fields);
}

/** Items of a pod's list; `none` when there are none. */
const plainList = <T>(items: readonly T[], none: string, item: (entry: T) => Html) =>
  items.length === 0
    ? none && html`<p class="small">${none}</p>`
    : html`<ul class="plain-list">${items.map((entry) => html`<li>${item(entry)}</li>`)}</ul>`;

export function podPage(context: SignedInContext, view: PodPageView & { forms?: PodForms }): Html {
  const { pod, lists, jobs } = view;
  const forms = view.forms ?? {};
  const { edit, ignore, drafts: newDraft, lists: newList, cycles: cycle } = forms;
  const base = podPath(pod.id);
  // The pod's own cells and those in no pod can be chosen.
  const choosable = view.cells.filter((cell) => cell.pod_id === null || cell.pod_id === pod.id);
  const editFields = html`${podField(edit, { id: 'pod-name', name: 'name', label: 'Pod name', type: 'text', value: edit?.values.name ?? pod.name, attributes: NAME })}
${cellChoices(choosable, edit ? cellIdsOf(edit.values) : pod.cell_ids, edit?.errors.cell_ids)}`;

  const act = (draft: DraftView, action: string, label: string, className: string) =>
    postButton(context, `${base}/drafts/${draft.id}/${action}`, label, {
      className,
      ariaLabel: `${label} the draft to ${phone(draft.to)}`,
    });
  const drafts = dataTable({
    caption: 'Messages written but not sent yet; sending picks the cell the person already talks to.',
    columns: [
      { label: 'To', className: 'mono', value: (draft) => phone(draft.to) },
      { label: 'Text', value: (draft) => draft.body },
      {
        label: 'Actions',
        hiddenLabel: true,
        className: 'row-actions',
        value: (draft) =>
          html`${act(draft, 'send', 'Send', 'primary')} <a class="button secondary small-button" href="${base}/drafts/${draft.id}" aria-label="Edit the draft to ${phone(draft.to)}">Edit</a> ${act(draft, 'discard', 'Delete', 'danger')}`,
      },
    ],
    rows: view.drafts,
    rowHeader: false,
    rowId: (draft) => `draft-${draft.id}`,
    empty: html`<span class="small">No drafts.</span>`,
  });

  const mode = cycle?.values.mode === 'ring' ? 'ring' : 'broadcast';
  const radio = (value: string, label: string) =>
    choiceBox({ type: 'radio', id: `mode-${value}`, name: 'mode', value, checked: mode === value, label });
  const listChoices = [['', 'No list'] as const, ...lists.map((l) => [l.id, l.name] as const)];
  const cycleFields = html`${clientId(cycle)}
${fieldset({ id: 'mode', legend: 'What to start', error: cycle?.errors.mode }, [
  radio('broadcast', 'Broadcast: one text to each recipient, spread over the active cells'),
  radio('ring', 'Ring: each active cell texts the next (a health check)'),
])}
${podArea(cycle, { id: 'cycle-body', name: 'body', label: 'Message', hint: 'Required for a broadcast; a ring has a default.' })}
${lists.length > 0 && selectField({ id: 'cycle-list', name: 'list_id', label: 'Contact list', hint: 'Or type numbers below.', value: cycle?.values.list_id, error: cycle?.errors.list_id, choices: listChoices })}
${podArea(cycle, { id: 'cycle-to', name: 'to', label: 'Recipients', hint: 'A broadcast: one number per line, unless a list is chosen.' })}`;
  const jobList = plainList(
    jobs,
    '',
    (job) =>
      html`<a href="${podPath(pod.id, 'jobs', job.id)}">${capitalized(job.mode)} ${time(job.created_at)}</a> ${jobStatus(job)}`,
  );

  const listItems = plainList(
    lists,
    'No lists.',
    (entry) =>
      html`<a href="${podPath(pod.id, 'lists', entry.id)}">${entry.name}</a> <span class="small">(${entry.number_count} numbers)</span> ${postButton(context, `${base}/lists/${entry.id}/delete`, 'Delete', { className: 'danger', ariaLabel: `Delete the list ${entry.name}` })}`,
  );
  const listFields = html`${podField(newList, { id: 'list-name', name: 'name', label: 'List name', type: 'text', attributes: NAME })}
${podArea(newList, { id: 'list-numbers', name: 'numbers', label: 'Numbers', hint: 'One per line, in international form.', rows: 4 })}`;

  const ignoredItems = plainList(
    view.ignored,
    'None.',
    ({ participant }) =>
      html`<span class="mono">${phone(participant)}</span> ${postButton(context, `${base}/ignore/remove`, 'Stop ignoring', { ariaLabel: `Stop ignoring ${phone(participant)}`, fields: { participant } })}`,
  );
  const ignoreField = podField(ignore, {
    id: 'ignore-participant',
    name: 'participant',
    label: 'Number to ignore',
    type: 'tel',
    attributes: PHONE,
  });
  return layout(
    context,
    `${Object.values(forms).some(failed) ? 'Error: ' : ''}${pod.name}`,
    html`<div class="card wide pod-page">
${crumbs([PODS_CRUMB], pod.name)}
<h1>${pod.name}</h1>
<div class="pod-sections">
${section('edit', 'Name and cells', podForm(context, edit, { action: base, button: 'Save' }, editFields))}
${quietHoursSection(context, { action: `${base}/quiet-hours`, current: pod.quiet_hours as QuietHours | null, form: forms.quiet, explain: POD_QUIET_HOURS })}
${section('drafts', 'Drafts', [drafts, html`\n<h3>New draft</h3>\n`, draftForm(context, `${base}/drafts`, newDraft, true)])}
${section('cycles', 'Rings and broadcasts', [podForm(context, cycle, { action: `${base}/cycles`, button: 'Start' }, cycleFields), jobs.length > 0 && html`\n<h3>Jobs</h3>${jobList}`])}
${section('lists', 'Contact lists', [listItems, html`\n<h3>New list</h3>\n`, podForm(context, newList, { action: `${base}/lists`, button: 'Create list' }, listFields)])}
${section('ignore', 'Ignored numbers', [html`<p class="small">Texts from these numbers to the pod's cells are kept, without events or webhooks.</p>\n`, ignoredItems, podForm(context, ignore, { action: `${base}/ignore`, button: 'Ignore this number', tone: 'secondary' }, ignoreField)])}
${section('delete', 'Delete the pod', html`<p class="small">Its cells stay yours and leave the pod; its open rings and broadcasts are canceled.</p>\n<p><a class="button danger" href="${base}/delete">Delete ${pod.name}</a></p>`)}
</div>
</div>`,
  );
}

export const POD_QUIET_HOURS =
  'Texts from the cells of this pod that have no quiet hours of their own wait until they end (unless sent with send_now).';

export function deletePodPage(context: SignedInContext, pod: PodView): Html {
  const count = pod.cell_ids.length;
  return confirmationPage(context, {
    title: `Delete ${pod.name}?`,
    lead: podCrumbs(pod, 'Delete'),
    explain: `Its ${count === 1 ? 'cell stays yours and leaves' : `${count} cells stay yours and leave`} the pod, its open rings and broadcasts are canceled, and the pod no longer appears in the console or the API. This cannot be undone.`,
    action: `${podPath(pod.id)}/delete`,
    confirm: `Delete ${pod.name}`,
    keep: { href: podPath(pod.id), text: 'Keep the pod' },
  });
}

export function draftPage(context: SignedInContext, view: { pod: PodView; draft: DraftView; form?: FormState }): Html {
  const { pod, draft, form } = view;
  const base = podPath(pod.id);
  return layout(
    context,
    `${failed(form) ? 'Error: ' : ''}Edit draft — ${pod.name}`,
    html`<div class="card">
${podCrumbs(pod, 'Draft')}
<h1>Edit the draft</h1>
${draftForm(context, `${base}/drafts/${encodeURIComponent(draft.id)}`, form ?? { values: { to: draft.to, body: draft.body }, errors: {} }, false)}
<p class="after"><a href="${base}#drafts">Back to ${pod.name}</a></p>
</div>`,
  );
}

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
