// The inventory's pages (routes in inventory.ts): the add-a-phone form, a phone's settings section
// (on its page) and the confirmation of its removal. Each form shows its errors on its fields.
import { html, type Html } from '../../../lib/html.ts';
import { dataTable, type RowColumn } from '../data-table.ts';
import type { Refusal } from '../binder.ts';
import { DEFAULT_DAILY_SEND_LIMIT, DEFAULT_SEND_RATE_PER_MINUTE, type SimView } from '../../devices/service.ts';
import { confirmForm, crumbs, errorNotice, field } from '../layout.ts';
import { devicePath, OPERATOR_PATH } from './http.ts';
import { postForm, sectionPage } from './layout.ts';
import type { OperatorSession } from './service.ts';

/** A phone form's values as typed and its errors by field; `notice` for the form as a whole. */
export type PhoneForm = Omit<Refusal, 'status'>;

/** The settings a phone form sends (besides the number, on add). */
export const SETTINGS = ['label', 'send_rate_per_minute', 'daily_send_limit'] as const;

/** The settings fields of a phone form (the add form's and the phone page's). */
function settingsFields(prefix: string, form: PhoneForm): Html {
  return html`${field({ id: `${prefix}-label`, name: 'label', label: 'Label (optional)', type: 'text', value: form.values.label, hint: 'Where it sits in the rack, e.g. "shelf 2, slot 4".', error: form.errors.label, attributes: html`maxlength="100" autocomplete="off"`, optional: true })}
${field({ id: `${prefix}-rate`, name: 'send_rate_per_minute', label: 'Send rate (SMS segments per minute)', type: 'text', value: form.values.send_rate_per_minute, hint: `1 to 30 (Android refuses more on an unattended phone); ${DEFAULT_SEND_RATE_PER_MINUTE} when left empty.`, error: form.errors.send_rate_per_minute, attributes: html`inputmode="numeric" autocomplete="off"`, optional: true })}
${field({ id: `${prefix}-daily`, name: 'daily_send_limit', label: 'Daily limit (SMS segments per 24 hours)', type: 'text', value: form.values.daily_send_limit, hint: `1 to 10,000; ${DEFAULT_DAILY_SEND_LIMIT} when left empty.`, error: form.errors.daily_send_limit, attributes: html`inputmode="numeric" autocomplete="off"`, optional: true })}`;
}

/** Whether a form was refused (on a field, or as a whole). */
export const failed = (form: PhoneForm) => Boolean(form.notice) || Object.keys(form.errors).length > 0;

export function addPhonePage(session: OperatorSession, form: PhoneForm = { values: {}, errors: {} }): Html {
  return sectionPage(
    { session, current: 'fleet' },
    `${failed(form) ? 'Error: ' : ''}Add a phone`,
    html`${crumbs([[`${OPERATOR_PATH}/fleet`, 'Fleet']], 'Add a phone')}
<h1>Add a phone</h1>
<section aria-labelledby="smsgate-heading">
<h2 id="smsgate-heading">With the SMSGate app (recommended)</h2>
<p>For a phone running SMS Gateway for Android: both SIMs become cells, with delivery reports. Enrolling shows the server URL, a private token, a code and a QR code once; the phone signs in with them within 24 hours. Set its label, send rate and daily limit on its page once it has signed in.</p>
${postForm(session, { action: `${OPERATOR_PATH}/devices/enrollments`, button: 'Enroll a phone' })}
</section>
<section id="termux" aria-labelledby="termux-heading">
<h2 id="termux-heading">With Termux, by its number</h2>
<p>The phone's key is shown once, on its page: put it in the phone app. A cell waiting for a phone gets this one at once.</p>
${postForm(
  session,
  { action: `${OPERATOR_PATH}/devices`, button: 'Add phone', notice: form.notice },
  html`${field({ id: 'phone-number', name: 'phone_number', label: 'Phone number', type: 'tel', value: form.values.phone_number, hint: "The SIM's number in international form, like +14155550123.", error: form.errors.phone_number, attributes: html`maxlength="32" autocomplete="off" spellcheck="false"` })}
${settingsFields('phone', form)}`,
)}
</section>`,
  );
}

/** The name of a SIM line's number field (`sim_2`). */
export const simField = (simNumber: number) => `sim_${simNumber}`;

const SIM_COLUMNS: readonly RowColumn<SimView>[] = [
  { label: 'SIM', value: (line) => html`SIM ${line.sim_number} <span class="small">slot ${line.slot}</span>` },
  {
    label: 'Number',
    className: 'mono',
    value: (line) => line.phone_number ?? html`<span class="small">Not set</span>`,
  },
  { label: 'Reported by the app', className: 'mono', value: (line) => line.reported_number ?? '' },
  { label: 'Carrier', value: (line) => line.carrier ?? '' },
  {
    label: 'Cell',
    className: 'mono',
    value: (line) => line.cell_id ?? (line.phone_number ? 'Free' : 'None until its number is set'),
  },
];

/**
 * An SMSGate phone's SIM lines (on its page): each line's number, the digits the app reported and
 * the cell it carries, and a number field for each line that carries no cell (the app reports
 * numbers redacted, so the operator types them: contract §13).
 */
export function simLinesSection(
  session: OperatorSession,
  device: { id: string; sims: readonly SimView[] },
  form?: PhoneForm,
): Html {
  const open = device.sims.filter((line) => line.cell_id === null);
  const shown = form ?? {
    values: Object.fromEntries(open.map((line) => [simField(line.sim_number), line.phone_number ?? ''])),
    errors: {},
  };
  const fields = open.map((line) =>
    field({
      id: `sim-${line.sim_number}`,
      name: simField(line.sim_number),
      label: `SIM ${line.sim_number} number`,
      type: 'tel',
      value: shown.values[simField(line.sim_number)],
      hint: `In international form, like +14155550123${line.reported_number ? `; the app reported ${line.reported_number}` : ''}.`,
      error: shown.errors[simField(line.sim_number)],
      attributes: html`maxlength="32" autocomplete="off" spellcheck="false"`,
      optional: true,
    }),
  );
  return html`<section id="sims" aria-labelledby="sims-heading">
<h2 id="sims-heading">SIM lines</h2>
<p class="small">The SMSGate app reports each SIM's number masked to its last four digits. A line carries a cell once its number is set; a cell waiting for a phone takes it at once.</p>
${dataTable({
  caption: "The phone's SIM lines",
  columns: SIM_COLUMNS,
  rows: device.sims,
  empty: 'The app reported no SIM.',
})}
${
  open.length === 0
    ? ''
    : postForm(
        session,
        { action: `${devicePath(device.id)}/sims`, button: 'Save SIM numbers', notice: shown.notice },
        fields,
      )
}
</section>`;
}

/** The phone page's settings section (its form's errors when it was sent). */
export function phoneSettingsSection(
  session: OperatorSession,
  device: { id: string; label: string | null; send_rate_per_minute: number; daily_send_limit: number },
  form?: PhoneForm,
): Html {
  const shown = form ?? {
    values: {
      label: device.label ?? '',
      send_rate_per_minute: String(device.send_rate_per_minute),
      daily_send_limit: String(device.daily_send_limit),
    },
    errors: {},
  };
  return html`<section id="settings" aria-labelledby="settings-heading">
<h2 id="settings-heading">Settings</h2>
${postForm(
  session,
  { action: `${devicePath(device.id)}/settings`, button: 'Save settings', notice: shown.notice },
  settingsFields('settings', shown),
)}
<p><a class="button danger" href="${devicePath(device.id)}/remove">Remove from the inventory</a></p>
</section>`;
}

export function removePhonePage(
  session: OperatorSession,
  device: { id: string; phone_number: string | null; cell_id: string | null },
  refusal?: string,
): Html {
  return sectionPage(
    { session, current: 'fleet' },
    `${refusal ? 'Error: ' : ''}Remove ${device.phone_number ?? device.id}?`,
    html`${crumbs(
      [
        [`${OPERATOR_PATH}/fleet`, 'Fleet'],
        [devicePath(device.id), device.phone_number ?? device.id],
      ],
      'Remove',
    )}
<h1>Remove <span class="mono">${device.phone_number ?? device.id}</span>?</h1>
${errorNotice(refusal)}
<p>The phone leaves the inventory and its key stops working. ${device.cell_id ? 'It carries a cell: the cell must be released first.' : 'It carries no cell.'} This cannot be undone; add the phone again to use it later.</p>
${confirmForm({
  action: `${devicePath(device.id)}/remove`,
  csrfToken: session.csrfToken,
  confirm: 'Remove phone',
  keep: { href: devicePath(device.id), text: 'Keep the phone' },
})}`,
  );
}
