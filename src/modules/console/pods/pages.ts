// The Pods section's HTML: the pods list with a create form; a pod's page (its cells and name,
// quiet hours, drafts, contact lists, ignored numbers, a ring or broadcast form, its jobs); a
// draft's edit page; a job's progress (live). Each form shows its own errors on its fields.
import { html, join, type Html } from '../../../lib/html.ts';
import type { QuietHours } from '../../../lib/quiet-hours.ts';
import type { CellView } from '../../cells/service.ts';
import type { DraftView, JobView, PodView } from '../../pods/views.ts';
import { capitalized, csrfField, postButton, stateTag } from '../account/shared.ts';
import { phone, time } from '../conversations/format.ts';
import { SCRIPTS } from '../conversations/pages.ts';
import { confirmationPage } from '../pages.ts';
import type { SignedInContext } from '../guard.ts';
import { errorNotice, field, hidden, layout } from '../layout.ts';
import { tableHead, tableRow, type Column } from '../data-table.ts';
import { quietHoursSection, type QuietHoursForm } from '../quiet-hours.ts';
import { randomBase62 } from '../../../lib/secrets.ts';

/** What a form shows again: the values typed and the errors by field; `notice` for the form as a whole. */
export interface FormState {
  values: Record<string, string>;
  errors: Record<string, string>;
  notice?: string;
}
export const emptyForm = (): FormState => ({ values: {}, errors: {} });
export const failed = (form?: FormState) => Boolean(form && (form.notice || Object.keys(form.errors).length > 0));

export type ListSummary = { id: string; name: string; number_count: number };
export type Ignored = { participant: string; created_at: string };

export const podsPath = (context: SignedInContext) => `${context.path}/pods`;
export const podPath = (context: SignedInContext, podId: string) => `${podsPath(context)}/${encodeURIComponent(podId)}`;
export const jobPath = (context: SignedInContext, podId: string, jobId: string) =>
  `${podPath(context, podId)}/jobs/${encodeURIComponent(jobId)}`;
export const listPath = (context: SignedInContext, podId: string, listId: string) =>
  `${podPath(context, podId)}/lists/${encodeURIComponent(listId)}`;

export const formNotice = (form?: FormState) => errorNotice(form?.notice);

export const textArea = (options: {
  id: string;
  name: string;
  label: string;
  value?: string;
  hint: string;
  error?: string;
  rows?: number;
}) => {
  const described = `${options.id}-hint${options.error ? ` ${options.id}-error` : ''}`;
  return html`<div class="field">
<label for="${options.id}">${options.label}</label>
<span class="hint" id="${options.id}-hint">${options.hint}</span>
<textarea id="${options.id}" name="${options.name}" rows="${options.rows ?? 3}" aria-describedby="${described}"${options.error ? html` aria-invalid="true" autofocus` : ''}>${options.value ?? ''}</textarea>
${options.error ? html`<p class="field-error" id="${options.id}-error">${options.error}</p>` : ''}
</div>`;
};

/** Checkboxes of the organization's cells (distinct names: the form parser refuses repeats). */
function cellChoices(idPrefix: string, cells: readonly CellView[], chosen: ReadonlySet<string>, error?: string): Html {
  return html`<fieldset class="field"${error ? html` aria-describedby="${idPrefix}-error"` : ''}>
<legend>Cells</legend>
<span class="hint">A cell is in at most one pod.</span>
${cells.length === 0 ? html`<p class="small">No cells yet.</p>` : ''}
${join(
  cells.map(
    (cell, i) =>
      html`<div class="check"><input type="checkbox" id="${idPrefix}-${i}" name="cell_${i}" value="${cell.id}"${chosen.has(cell.id) ? ' checked' : ''}><label for="${idPrefix}-${i}">${cell.display_name}${cell.phone_number ? html` <span class="small mono">${phone(cell.phone_number)}</span>` : ''}</label></div>`,
  ),
  '\n',
)}
${error ? html`<p class="field-error" id="${idPrefix}-error">${error}</p>` : ''}
</fieldset>`;
}

const POD_COLUMNS: readonly Column[] = ['Pod', 'Cells', 'Quiet hours'];

export function podsPage(
  context: SignedInContext,
  view: { pods: PodView[]; nextCursor: string | null; cells: CellView[]; form?: FormState; status?: number },
): Html {
  const { form } = view;
  const chosen = new Set(Object.entries(form?.values ?? {}).flatMap(([k, v]) => (k.startsWith('cell_') ? [v] : [])));
  const names = new Map(view.cells.map((cell) => [cell.id, cell.display_name]));
  return layout(
    { ...context, current: 'pods' },
    `${failed(form) ? 'Error: ' : ''}Pods`,
    html`<div class="card wide">
<h1>Pods</h1>
<p class="lead">A pod is a pool of your cells that send together: drafts sent from whichever cell a person already talks to, rings and broadcasts.</p>
${view.pods.length === 0 ? html`<p id="pods-empty">No pods yet.</p>` : ''}
<table${view.pods.length === 0 ? ' hidden' : ''}>
<caption>The pods of ${context.signedIn.organizationName}.</caption>
${tableHead(POD_COLUMNS)}
<tbody id="pods">
${join(
  view.pods.map((pod) =>
    tableRow(
      POD_COLUMNS,
      [
        html`<a href="${podPath(context, pod.id)}">${pod.name}</a>`,
        pod.cell_ids.length === 0
          ? html`<span class="small">None</span>`
          : pod.cell_ids.map((id) => names.get(id) ?? id).join(', '),
        pod.quiet_hours
          ? `${pod.quiet_hours.start}–${pod.quiet_hours.end} ${pod.quiet_hours.time_zone}`
          : html`<span class="small">None</span>`,
      ],
      { rowHeader: true },
    ),
  ),
  '\n',
)}
</tbody>
</table>
${view.nextCursor ? html`<p class="after"><a href="${podsPath(context)}?cursor=${encodeURIComponent(view.nextCursor)}">More pods</a></p>` : ''}
<section aria-labelledby="new-pod-heading">
<h2 id="new-pod-heading">Create a pod</h2>
${formNotice(form)}
<form method="post" action="${podsPath(context)}" novalidate>
${csrfField(context)}
${hidden('client_id', form?.values.client_id || randomBase62(22))}
${field({ id: 'pod-name', name: 'name', label: 'Pod name', type: 'text', value: form?.values.name, hint: 'Up to 100 characters, like Outreach.', error: form?.errors.name, attributes: html`maxlength="100" autocomplete="off"` })}
${cellChoices('pod-cells', view.cells, chosen, form?.errors.cell_ids)}
<div class="actions"><button type="submit" class="primary">Create pod</button></div>
</form>
</section>
</div>`,
  );
}

export interface PodForms {
  edit?: FormState;
  quiet?: QuietHoursForm;
  draft?: FormState;
  list?: FormState;
  ignore?: FormState;
  cycle?: FormState;
}

const jobStatus = (job: JobView) => {
  const kind =
    job.status === 'completed' ? 'ok' : job.status === 'failed' ? 'bad' : job.status === 'canceled' ? 'idle' : 'warn';
  return stateTag(kind, capitalized(job.status));
};

export function jobProgress(job: JobView): Html {
  const { counts } = job;
  const done = counts.sent + counts.delivered + counts.received + counts.failed + counts.skipped;
  return html`<div id="job-progress" data-live-part>
<p>${jobStatus(job)} <progress max="${Math.max(counts.total, 1)}" value="${Math.min(done, counts.total)}" aria-label="Messages handled">${done} of ${counts.total}</progress> ${done} of ${counts.total} handled</p>
<dl class="facts">
<dt>Waiting or queued</dt><dd>${counts.queued}</dd>
<dt>Sent</dt><dd>${counts.sent}</dd>
<dt>Delivered</dt><dd>${counts.delivered}</dd>
${job.mode === 'ring' ? html`<dt>Received by the next cell</dt><dd>${counts.received}</dd>` : ''}
<dt>Failed</dt><dd>${counts.failed}</dd>
${job.mode === 'broadcast' ? html`<dt>Skipped (texted STOP)</dt><dd>${counts.skipped}</dd>` : ''}
<dt>Started</dt><dd>${time(job.created_at)}</dd>
${job.send_at ? html`<dt>Scheduled for</dt><dd>${time(job.send_at)}</dd>` : ''}
<dt>Ended</dt><dd>${job.completed_at ? time(job.completed_at) : 'Not yet'}</dd>
</dl>
</div>`;
}

/** The Cancel button is a live part: when the job ends while the page is open, the live view drops it. */
export function jobPage(context: SignedInContext, view: { pod: PodView; job: JobView; liveUrl: string | null }): Html {
  const { pod, job } = view;
  const open = job.status === 'queued' || job.status === 'running';
  return layout(
    { ...context, current: 'pods', scripts: SCRIPTS },
    `${capitalized(job.mode)} of ${pod.name}`,
    html`<div class="card wide">
<nav aria-label="Breadcrumb" class="crumbs"><ol><li><a href="${podsPath(context)}">Pods</a></li><li><a href="${podPath(context, pod.id)}">${pod.name}</a></li><li aria-current="page">${capitalized(job.mode)}</li></ol></nav>
<h1>${capitalized(job.mode)} of ${pod.name}</h1>
${view.liveUrl ? html`<p id="live-status" class="live-status small" role="status" data-live-url="${view.liveUrl}" data-live-text="Live: the counts change as the phones report.">Reload the page to see the counts change.</p>` : ''}
${jobProgress(job)}
<div id="job-actions" data-live-part>${open ? postButton(context, `${jobPath(context, pod.id, job.id)}/cancel`, 'Cancel the job', { className: 'danger' }) : ''}</div>
</div>`,
  );
}

const DRAFT_COLUMNS: readonly Column[] = [
  { label: 'To', className: 'mono' },
  'Text',
  { label: 'Actions', hiddenLabel: true, className: 'row-actions' },
];

function draftsSection(context: SignedInContext, pod: PodView, drafts: DraftView[], form?: FormState): Html {
  const base = podPath(context, pod.id);
  return html`<section id="drafts" aria-labelledby="drafts-heading">
<h2 id="drafts-heading">Drafts</h2>
${
  drafts.length === 0
    ? html`<p class="small">No drafts.</p>`
    : html`<table><caption>Messages written but not sent yet; sending picks the cell the person already talks to.</caption>
${tableHead(DRAFT_COLUMNS)}
<tbody>${join(
        drafts.map((draft) =>
          tableRow(
            DRAFT_COLUMNS,
            [
              phone(draft.to),
              draft.body,
              html`${postButton(context, `${base}/drafts/${draft.id}/send`, 'Send', { className: 'primary', ariaLabel: `Send the draft to ${phone(draft.to)}` })} <a class="button secondary small-button" href="${base}/drafts/${draft.id}" aria-label="Edit the draft to ${phone(draft.to)}">Edit</a> ${postButton(context, `${base}/drafts/${draft.id}/discard`, 'Delete', { className: 'danger', ariaLabel: `Delete the draft to ${phone(draft.to)}` })}`,
            ],
            { id: `draft-${draft.id}` },
          ),
        ),
        '\n',
      )}</tbody></table>`
}
<h3>New draft</h3>
${formNotice(form)}
${draftForm(context, `${base}/drafts`, form, 'Save draft')}
</section>`;
}

export function draftForm(
  context: SignedInContext,
  action: string,
  form: FormState | undefined,
  button: string,
  clientId = true,
): Html {
  return html`<form method="post" action="${action}" novalidate>
${csrfField(context)}
${clientId ? hidden('client_id', form?.values.client_id || randomBase62(22)) : ''}
${field({ id: 'draft-to', name: 'to', label: 'To', type: 'tel', value: form?.values.to, hint: 'In international form, like +14155550123.', error: form?.errors.to, attributes: html`autocomplete="off" spellcheck="false" maxlength="64"` })}
${textArea({ id: 'draft-body', name: 'body', label: 'Message', value: form?.values.body, hint: 'Up to 1600 characters.', error: form?.errors.body })}
<div class="actions"><button type="submit" class="primary">${button}</button></div>
</form>`;
}

function listsSection(context: SignedInContext, pod: PodView, lists: ListSummary[], form?: FormState): Html {
  const base = podPath(context, pod.id);
  return html`<section id="lists" aria-labelledby="lists-heading">
<h2 id="lists-heading">Contact lists</h2>
${lists.length === 0 ? html`<p class="small">No lists.</p>` : html`<ul class="plain-list">${lists.map((list) => html`<li id="list-${list.id}"><a href="${listPath(context, pod.id, list.id)}">${list.name}</a> <span class="small">(${list.number_count} numbers)</span> ${postButton(context, `${base}/lists/${list.id}/delete`, 'Delete', { className: 'danger', ariaLabel: `Delete the list ${list.name}` })}</li>`)}</ul>`}
<h3>New list</h3>
${formNotice(form)}
<form method="post" action="${base}/lists" novalidate>
${csrfField(context)}
${field({ id: 'list-name', name: 'name', label: 'List name', type: 'text', value: form?.values.name, error: form?.errors.name, attributes: html`maxlength="100" autocomplete="off"` })}
${textArea({ id: 'list-numbers', name: 'numbers', label: 'Numbers', value: form?.values.numbers, hint: 'One per line, in international form.', error: form?.errors.numbers, rows: 4 })}
<div class="actions"><button type="submit" class="primary">Create list</button></div>
</form>
</section>`;
}

function ignoreSection(context: SignedInContext, pod: PodView, ignored: Ignored[], form?: FormState): Html {
  const base = podPath(context, pod.id);
  return html`<section id="ignore" aria-labelledby="ignore-heading">
<h2 id="ignore-heading">Ignored numbers</h2>
<p class="small">Texts from these numbers to the pod's cells are kept, without events or webhooks.</p>
${ignored.length === 0 ? html`<p class="small">None.</p>` : html`<ul class="plain-list">${ignored.map((entry) => html`<li><span class="mono">${phone(entry.participant)}</span> ${postButton(context, `${base}/ignore/remove`, 'Stop ignoring', { className: 'secondary', ariaLabel: `Stop ignoring ${phone(entry.participant)}`, fields: { participant: entry.participant } })}</li>`)}</ul>`}
${formNotice(form)}
<form method="post" action="${base}/ignore" novalidate>
${csrfField(context)}
${field({ id: 'ignore-participant', name: 'participant', label: 'Number to ignore', type: 'tel', value: form?.values.participant, error: form?.errors.participant, attributes: html`autocomplete="off" spellcheck="false" maxlength="64"` })}
<div class="actions"><button type="submit" class="secondary">Ignore this number</button></div>
</form>
</section>`;
}

function cycleSection(
  context: SignedInContext,
  pod: PodView,
  lists: ListSummary[],
  jobs: JobView[],
  form?: FormState,
): Html {
  const base = podPath(context, pod.id);
  const mode = form?.values.mode === 'ring' ? 'ring' : 'broadcast';
  const radio = (value: string, label: string) =>
    html`<div class="check"><input type="radio" id="mode-${value}" name="mode" value="${value}"${mode === value ? ' checked' : ''}><label for="mode-${value}">${label}</label></div>`;
  return html`<section id="cycles" aria-labelledby="cycles-heading">
<h2 id="cycles-heading">Rings and broadcasts</h2>
${formNotice(form)}
<form method="post" action="${base}/cycles" novalidate>
${csrfField(context)}
${hidden('client_id', form?.values.client_id || randomBase62(22))}
<fieldset class="field"${form?.errors.mode ? html` aria-describedby="mode-error"` : ''}><legend>What to start</legend>
${radio('broadcast', 'Broadcast: one text to each recipient, spread over the active cells')}
${radio('ring', 'Ring: each active cell texts the next (a health check)')}
${form?.errors.mode ? html`<p class="field-error" id="mode-error">${form.errors.mode}</p>` : ''}
</fieldset>
${textArea({ id: 'cycle-body', name: 'body', label: 'Message', value: form?.values.body, hint: 'Required for a broadcast; a ring has a default.', error: form?.errors.body })}
${
  lists.length > 0
    ? html`<div class="field"><label for="cycle-list">Contact list</label><span class="hint" id="cycle-list-hint">Or type numbers below.</span><select id="cycle-list" name="list_id" aria-describedby="cycle-list-hint"><option value="">No list</option>${lists.map((list) => html`<option value="${list.id}"${form?.values.list_id === list.id ? ' selected' : ''}>${list.name}</option>`)}</select>${form?.errors.list_id ? html`<p class="field-error">${form.errors.list_id}</p>` : ''}</div>`
    : ''
}
${textArea({ id: 'cycle-to', name: 'to', label: 'Recipients', value: form?.values.to, hint: 'A broadcast: one number per line, unless a list is chosen.', error: form?.errors.to, rows: 3 })}
<div class="actions"><button type="submit" class="primary">Start</button></div>
</form>
${jobs.length === 0 ? '' : html`<h3>Jobs</h3><ul class="plain-list">${jobs.map((job) => html`<li><a href="${jobPath(context, pod.id, job.id)}">${capitalized(job.mode)} ${time(job.created_at)}</a> ${jobStatus(job)}</li>`)}</ul>`}
</section>`;
}

export const POD_QUIET_HOURS =
  'Texts from the cells of this pod that have no quiet hours of their own wait until they end (unless sent with send_now).';

export function podPage(
  context: SignedInContext,
  view: {
    pod: PodView;
    cells: CellView[];
    drafts: DraftView[];
    lists: ListSummary[];
    ignored: Ignored[];
    jobs: JobView[];
    forms?: PodForms;
  },
): Html {
  const { pod } = view;
  const forms = view.forms ?? {};
  const anyError = Object.values(forms).some(
    (form) => form && Object.keys(form.errors).length + ('notice' in form && form.notice ? 1 : 0) > 0,
  );
  // The pod's own cells and those in no pod can be chosen.
  const choosable = view.cells.filter((cell) => cell.pod_id === null || cell.pod_id === pod.id);
  const chosen = forms.edit
    ? new Set(Object.entries(forms.edit.values).flatMap(([k, v]) => (k.startsWith('cell_') ? [v] : [])))
    : new Set(pod.cell_ids);
  return layout(
    { ...context, current: 'pods' },
    `${anyError ? 'Error: ' : ''}${pod.name}`,
    html`<div class="card wide pod-page">
<nav aria-label="Breadcrumb" class="crumbs"><ol><li><a href="${podsPath(context)}">Pods</a></li><li aria-current="page">${pod.name}</li></ol></nav>
<h1>${pod.name}</h1>
<div class="pod-sections">
<section id="edit" aria-labelledby="edit-heading">
<h2 id="edit-heading">Name and cells</h2>
${formNotice(forms.edit)}
<form method="post" action="${podPath(context, pod.id)}" novalidate>
${csrfField(context)}
${field({ id: 'pod-name', name: 'name', label: 'Pod name', type: 'text', value: forms.edit?.values.name ?? pod.name, error: forms.edit?.errors.name, attributes: html`maxlength="100" autocomplete="off"` })}
${cellChoices('pod-cells', choosable, chosen, forms.edit?.errors.cell_ids)}
<div class="actions"><button type="submit" class="primary">Save</button></div>
</form>
</section>
${quietHoursSection(context, { action: `${podPath(context, pod.id)}/quiet-hours`, current: pod.quiet_hours as QuietHours | null, form: forms.quiet, explain: POD_QUIET_HOURS })}
${draftsSection(context, pod, view.drafts, forms.draft)}
${cycleSection(context, pod, view.lists, view.jobs, forms.cycle)}
${listsSection(context, pod, view.lists, forms.list)}
${ignoreSection(context, pod, view.ignored, forms.ignore)}
<section id="delete" aria-labelledby="delete-heading">
<h2 id="delete-heading">Delete the pod</h2>
<p class="small">Its cells stay yours and leave the pod; its open rings and broadcasts are canceled.</p>
<p><a class="button danger" href="${podPath(context, pod.id)}/delete">Delete ${pod.name}</a></p>
</section>
</div>
</div>`,
  );
}

export const crumbs = (context: SignedInContext, pod: PodView, here: string) =>
  html`<nav aria-label="Breadcrumb" class="crumbs"><ol><li><a href="${podsPath(context)}">Pods</a></li><li><a href="${podPath(context, pod.id)}">${pod.name}</a></li><li aria-current="page">${here}</li></ol></nav>`;

export function deletePodPage(context: SignedInContext, pod: PodView): Html {
  return confirmationPage(
    { ...context, current: 'pods' },
    {
      title: `Delete ${pod.name}?`,
      lead: crumbs(context, pod, 'Delete'),
      explain: `Its ${pod.cell_ids.length === 1 ? 'cell stays yours and leaves' : `${pod.cell_ids.length} cells stay yours and leave`} the pod, its open rings and broadcasts are canceled, and the pod no longer appears in the console or the API. This cannot be undone.`,
      action: `${podPath(context, pod.id)}/delete`,
      confirm: `Delete ${pod.name}`,
      keep: { href: podPath(context, pod.id), text: 'Keep the pod' },
    },
  );
}

export function draftPage(context: SignedInContext, view: { pod: PodView; draft: DraftView; form?: FormState }): Html {
  const { pod, draft, form } = view;
  const values = form ?? { values: { to: draft.to, body: draft.body }, errors: {} };
  return layout(
    { ...context, current: 'pods' },
    `${failed(form) ? 'Error: ' : ''}Edit draft — ${pod.name}`,
    html`<div class="card">
<nav aria-label="Breadcrumb" class="crumbs"><ol><li><a href="${podsPath(context)}">Pods</a></li><li><a href="${podPath(context, pod.id)}">${pod.name}</a></li><li aria-current="page">Draft</li></ol></nav>
<h1>Edit the draft</h1>
${formNotice(form)}
${draftForm(context, `${podPath(context, pod.id)}/drafts/${encodeURIComponent(draft.id)}`, values, 'Save draft', false)}
<p class="after"><a href="${podPath(context, pod.id)}#drafts">Back to ${pod.name}</a></p>
</div>`,
  );
}
