// The quiet-hours form of a cell's page and a pod's page: start, end (24-hour, local to the zone)
// and an IANA time zone, through the resource's update operation; its refusals on their fields.
import { html, type Html } from '../../lib/html.ts';
import { ApiError } from '../../lib/errors.ts';
import type { QuietHours } from '../../lib/quiet-hours.ts';
import type { Answer, Ask } from './binder.ts';
import type { SignedInContext } from './guard.ts';
import { csrfField, field, hidden, layout } from './layout.ts';

export type QuietField = 'start' | 'end' | 'time_zone';

export interface QuietHoursForm {
  values: Record<QuietField, string>;
  errors: Partial<Record<QuietField, string>>;
}

/**
 * Zones offered as you type (the field takes any IANA name Intl knows), listed on the first form
 * drawn: the list reads ICU's zone data, about 2 MB resident that an idle service does not need.
 */
let zones: readonly string[] | undefined;
const zoneNames = () => (zones ??= Intl.supportedValuesOf('timeZone'));

const WORDS: Record<QuietField, string> = {
  start: 'Enter the start as a 24-hour time, like 21:00.',
  end: 'Enter the end as a 24-hour time, like 08:00.',
  time_zone: 'Enter a time zone by its IANA name, like America/New_York.',
};

/** The service's refusal of the hours as the form's errors, or null for another error. */
function quietErrorsOf(error: unknown): QuietHoursForm['errors'] | null {
  if (!(error instanceof ApiError) || error.code !== 'invalid_request' || !error.errors?.length) return null;
  const errors: QuietHoursForm['errors'] = {};
  for (const e of error.errors) {
    const name = e.field.replace(/^quiet_hours\./, '') as QuietField;
    if (!Object.hasOwn(WORDS, name)) return null;
    errors[name] =
      e.code === 'invalid_value'
        ? 'The end must differ from the start (an all-day window is not quiet hours).'
        : WORDS[name];
  }
  return errors;
}

/** A quiet-hours post: set or clear through `update`, then back to `location`; a bad field shows `again` (400). */
export async function postQuietHours(
  ask: Ask,
  update: (quietHours: QuietHoursForm['values'] | null) => Promise<unknown>,
  again: (form: QuietHoursForm) => Promise<Html>,
  location: string,
): Promise<Answer> {
  const clear = ask.body.action === 'clear';
  // A time input may send seconds (HH:MM:SS) when a browser offers them: the minutes are what count.
  const value = (name: QuietField) => (ask.body[name] ?? '').trim().replace(/^(\d{2}:\d{2}):00$/, '$1');
  const values = { start: value('start'), end: value('end'), time_zone: value('time_zone') };
  const empty = clear ? [] : (['start', 'end', 'time_zone'] as const).filter((name) => values[name] === '');
  let errors: QuietHoursForm['errors'] = Object.fromEntries(empty.map((name) => [name, WORDS[name]]));
  if (empty.length === 0)
    try {
      await update(clear ? null : values);
      return `${location}#quiet-hours`;
    } catch (error) {
      const refused = !clear && quietErrorsOf(error);
      if (!refused) throw error;
      errors = refused;
    }
  return ask.send(400, await again({ values, errors }));
}

/** The section of a page: what is set, the form, and Clear when something is set. */
export function quietHoursSection(
  context: SignedInContext,
  options: { action: string; current: QuietHours | null; form?: QuietHoursForm; explain: string },
): Html {
  const { current } = options;
  const values = options.form?.values ?? current ?? { start: '', end: '', time_zone: '' };
  const errors = options.form?.errors ?? {};
  return html`<section id="quiet-hours" aria-labelledby="quiet-hours-heading">
<h2 id="quiet-hours-heading">Quiet hours</h2>
<p>${options.explain} Now: <strong>${current ? `${current.start} to ${current.end}, ${current.time_zone}` : 'None'}</strong>.</p>
<form method="post" action="${options.action}" novalidate class="quiet-hours-form">
${csrfField(context)}
<div class="field-grid">
${field({ id: 'quiet-start', name: 'start', label: 'Start', type: 'time', value: values.start, hint: 'HH:MM, 24-hour', error: errors.start })}
${field({ id: 'quiet-end', name: 'end', label: 'End', type: 'time', value: values.end, hint: 'Before the start: it spans midnight', error: errors.end })}
${field({ id: 'quiet-zone', name: 'time_zone', label: 'Time zone', type: 'text', value: values.time_zone, hint: 'IANA name, like America/New_York', error: errors.time_zone, attributes: html`list="time-zones" autocomplete="off" spellcheck="false" maxlength="64"` })}
</div>
<datalist id="time-zones">${zoneNames().map((zone) => html`<option value="${zone}"></option>`)}</datalist>
<div class="actions"><button type="submit" class="primary">Save quiet hours</button></div>
</form>
${current ? html`<form method="post" action="${options.action}">${csrfField(context)}${hidden('action', 'clear')}<button type="submit" class="secondary">Clear quiet hours</button></form>` : ''}
</section>`;
}

/** The form alone, with its errors (the answer to a bad post). */
export function quietHoursPage(
  context: SignedInContext,
  options: Parameters<typeof quietHoursSection>[1] & {
    title: string;
    back: { href: string; text: string };
    form: QuietHoursForm;
  },
): Html {
  return layout(
    context,
    `Error: Quiet hours of ${options.title}`,
    html`<div class="card wide">
<h1>Quiet hours of ${options.title}</h1>
<div class="notice error" role="alert"><p>The quiet hours were not saved: correct the fields marked below.</p></div>
${quietHoursSection(context, options)}
<p class="after"><a href="${options.back.href}">${options.back.text}</a></p>
</div>`,
  );
}
