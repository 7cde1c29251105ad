// The fleet and device pages: every phone in one table (a row per phone, replaced by the live view
// by its id), and one phone's telemetry, failures and actions. Server-rendered; forms work
// without JavaScript; state is said in words, never by colour alone.
import { html, join, type Html } from '../../../lib/html.ts';
import { capitalized, revealOnce, stateTag, when } from '../account/shared.ts';
import { telemetryChart, telemetryTable, type TelemetryPoint } from './chart.ts';
import type { FleetFilter, FleetLine, FleetRow, FleetView } from './fleet.ts';
import { actionForm, sectionPage, tabs } from './layout.ts';
import { crumbs, facts, section } from '../layout.ts';
import { dataTable, rowOf, type RowColumn } from '../data-table.ts';
import type { OperatorSession } from './service.ts';
import { devicePath } from './http.ts';
import { phoneSettingsSection, simLinesSection, type PhoneForm } from './inventory-pages.ts';

const BASE = '/console/operator';

/** Each filter's name, and what its table says when empty. */
const FILTERS: Record<FleetFilter, [string, string]> = {
  all: ['All phones', 'No phone in the inventory yet.'],
  offline: ['Offline', 'Every phone is online.'],
  unhealthy: ['Unhealthy', 'Every phone is healthy.'],
  paused: ['Paused', 'No phone is paused.'],
};

const dash = html`<span class="small">—</span>`;
/** What a phone that never called the service shows for what only its calls tell (health, capabilities). */
const NOT_REPORTED = html`<span class="small">Not reported yet</span>`;
const neverConnected = (row: FleetRow) => row.device.last_seen_at === null;

function battery(row: FleetRow): Html {
  const { battery_pct: pct, charging } = row.device;
  if (pct === null) return dash;
  const low = pct < 15 && charging !== true;
  return html`${low ? stateTag('bad', `${pct}%`) : `${pct}%`}${charging === null ? '' : html`<br><span class="small">${charging ? 'Charging' : 'On battery'}</span>`}`;
}

function capabilities(row: FleetRow): Html {
  const words: Array<[keyof FleetRow['device']['capabilities'], string]> = [
    ['delivery_reports', 'Delivery reports'],
    ['mms_send', 'MMS send'],
    ['mms_receive', 'MMS receive'],
  ];
  if (neverConnected(row)) return NOT_REPORTED;
  const on = words.filter(([key]) => row.device.capabilities[key]).map(([, word]) => word);
  return html`<span class="small">${on.length === 0 ? 'SMS only' : `SMS, ${on.join(', ')}`}</span>`;
}

/** Health in words (and the operator's hold), with why when the service said why. */
function health(row: FleetRow): Html {
  const d = row.device;
  const kind = d.health === 'healthy' ? 'ok' : d.health === 'degraded' ? 'warn' : 'bad';
  // A phone starts healthy: until it connects that says nothing (other states came from somewhere).
  const state = neverConnected(row) && d.health === 'healthy' ? NOT_REPORTED : stateTag(kind, capitalized(d.health));
  const why = (reason: string | null) => (reason ? html`<br><span class="small">${reason}</span>` : '');
  return html`${state}${why(d.health_reason)}${d.paused ? html`<br>${stateTag('idle', 'Paused')}${why(d.paused_reason)}` : ''}`;
}

/** Online, offline, or never connected (a phone added whose app has not called yet), with when it was last seen. */
function presence(row: FleetRow, separator: Html = html` `): Html {
  if (neverConnected(row)) return stateTag('idle', 'Never connected');
  const state = row.device.online ? stateTag('ok', 'Online') : stateTag('bad', 'Offline');
  return html`${state}${separator}<span class="small">Last seen </span>${when(row.device.last_seen_at)}`;
}

/** The fleet's count line ("3 phones in the rack, 2 online."); the live view replaces it as phones come and go. */
export function fleetSummary(rows: readonly FleetRow[]): string {
  const online = rows.filter((row) => row.device.online).length;
  return `${rows.length} ${rows.length === 1 ? 'phone' : 'phones'} in the rack, ${online} online.`;
}

function organizationLink(id: string | null, name: string | null, none: string): Html {
  return id
    ? html`<a href="${BASE}/organizations/${encodeURIComponent(id)}">${name ?? id}</a>`
    : html`<span class="small">${none}</span>`;
}

const noCell = html`<span class="small">No cell</span>`;

/** A line's SIM and number: "SIM 2 +1415…" (or "no number yet"). */
function simOf(line: FleetLine): Html {
  return html`SIM ${line.sim_number} ${line.phone_number ? html`<span class="mono">${line.phone_number}</span>` : html`<span class="small">no number yet</span>`}`;
}

/** The cell and organization of each SIM line of a dual-SIM phone (two SIMs, two cells); of the phone otherwise. */
function cellsOf(row: FleetRow): Html {
  if (row.lines.length < 2)
    return html`${row.cell_name ?? noCell}<br>${organizationLink(row.organization_id, row.organization_name, 'Free')}`;
  return join(
    row.lines.map(
      (line) =>
        html`<span class="small">${simOf(line)}:</span> ${line.cell_name ?? noCell}${line.cell_id ? html` <span class="small">(${organizationLink(line.organization_id, line.organization_name, 'Free')})</span>` : ''}`,
    ),
    html`<br>`,
  );
}

const FLEET_COLUMNS: readonly RowColumn<FleetRow>[] = [
  {
    label: 'Phone',
    value: ({ device: d }) =>
      html`<a href="${devicePath(d.id)}" class="mono">${d.phone_number ?? d.id}</a>${d.label ? html`<br><span class="small">${d.label}</span>` : ''}`,
  },
  { label: 'Cell and organization', value: cellsOf },
  { label: 'Presence', value: (row) => presence(row, html`<br>`) },
  { label: 'Health', value: health },
  { label: 'Battery', numeric: true, value: battery },
  { label: 'Signal', numeric: true, value: ({ device: d }) => (d.signal_dbm === null ? dash : `${d.signal_dbm} dBm`) },
  { label: 'Queued', numeric: true, value: (row) => row.queued },
  {
    label: 'Sent / failed (24 h)',
    numeric: true,
    value: ({ device: d }) => html`${d.sent_24h} / ${d.failed_24h > 0 ? stateTag('warn', String(d.failed_24h)) : '0'}`,
  },
  {
    label: 'Send rate',
    numeric: true,
    value: ({ device: d }) =>
      html`${d.send_rate_per_minute}/min<br><span class="small">${d.daily_send_limit}/day</span>`,
  },
  {
    label: 'App and capabilities',
    value: (row) =>
      html`${row.device.app_version ? html`<span class="mono small">${row.device.app_version}</span>` : dash}<br>${capabilities(row)}`,
  },
];

/** One phone's row; the live view replaces it by its id. */
export const fleetRow = (row: FleetRow): Html =>
  rowOf(FLEET_COLUMNS, row, { id: `device-${row.device.id}`, rowHeader: true });

export function fleetPage(
  session: OperatorSession,
  rows: FleetRow[],
  options: { filter: FleetFilter; liveUrl: string | null; summary: string; notice?: Html },
): Html {
  const live = options.liveUrl
    ? html`<p id="live-status" class="live-status small" role="status" data-live-url="${options.liveUrl}" data-live-text="Live: rows update as phones report.">Reload the page to see changes.</p>`
    : html``;
  return sectionPage(
    { session, current: 'fleet', scripts: options.liveUrl ? ['fleet.js'] : [] },
    'Fleet',
    html`<h1>Fleet</h1>
${options.notice ?? ''}
<p class="lead"><span id="fleet-summary">${options.summary}</span> <a class="button secondary small-button" href="${BASE}/devices/new">Add a phone</a></p>
${tabs(
  'Filter phones',
  Object.entries(FILTERS).map(([filter, [words]]) => [
    `${BASE}/fleet${filter === 'all' ? '' : `?filter=${filter}`}`,
    words,
    filter === options.filter,
  ]),
)}
${live}
${dataTable({
  caption: `${FILTERS[options.filter][0]}: each phone with its cell, presence, telemetry and the last 24 hours`,
  columns: FLEET_COLUMNS,
  rows,
  empty: FILTERS[options.filter][1],
  rowId: (row) => `device-${row.device.id}`,
  scrollId: 'fleet-caption',
  live: { tbodyId: 'fleet', emptyId: 'fleet-empty', className: 'fleet-table' },
})}`,
  );
}

/** Each SIM line with its carrier, and the cell it carries with that cell's organization. */
function simLines(lines: FleetLine[]): Html {
  const item = (line: FleetLine) =>
    html`<li>${simOf(line)}${line.carrier ? html` <span class="small">${line.carrier}</span>` : ''}: ${
      line.cell_id
        ? html`${line.cell_name ?? ''} <span class="small mono">${line.cell_id}</span>, ${organizationLink(line.organization_id, line.organization_name, 'None')}`
        : 'No cell'
    }</li>`;
  return html`<ul>${join(lines.map(item), '\n')}</ul>`;
}

type FailureView = Awaited<ReturnType<FleetView['recentFailures']>>[number];

const failuresTable = (failures: FailureView[]) =>
  dataTable({
    caption: "The phone's latest failed messages, newest first",
    scrollId: 'failures-caption',
    empty: 'No failed message on this phone.',
    rows: failures,
    columns: [
      { label: 'Message', className: 'mono', value: (f) => f.id },
      { label: 'Failed', value: (f) => when(f.failed_at, 'Unknown') },
      { label: 'To', className: 'mono', value: (f) => f.to_number },
      { label: 'Error code', value: (f) => html`<span class="tag mono">${f.error_code ?? 'no code'}</span>` },
      { label: 'Error message', value: (f) => f.error_message || dash },
      { label: 'Attempts', numeric: true, value: (f) => f.attempts },
    ],
  });

/** What a device page says besides the phone: a key shown once, a notice, a form's error. */
export interface DevicePageOptions {
  rotatedKey?: string;
  /** The key shown is a new phone's (added), not a rotated one's. */
  keyIsNew?: boolean;
  notice?: Html;
  /** A form as sent (`form`: its path, settings, sims, pause…) with its refusal: its errors, or a notice above it. */
  sent?: PhoneForm & { form: string };
}

/** A phone's actions on its page, each a form with its reason. */
const ACTIONS = {
  pause: {
    heading: 'Pause',
    explain: 'The phone keeps its cell but claims nothing until resumed.',
    button: 'Pause phone',
    tone: 'danger',
  },
  resume: {
    heading: 'Resume',
    explain: 'The phone claims messages again (unless it is quarantined).',
    button: 'Resume phone',
    tone: 'primary',
  },
  release: {
    heading: 'Release',
    explain: 'You vouch for the SIM: the phone is healthy again and its earlier failures no longer count.',
    button: 'Release phone',
    tone: 'primary',
  },
  'rotate-key': {
    heading: 'Device key',
    explain: 'Rotating the key stops the old one at once; the new key is shown once, here.',
    button: 'Rotate device key',
    tone: 'danger',
    reason: { optional: true },
  },
} as const;

/**
 * Pause or resume, release when the phone is not healthy, and the key's rotation; each with its
 * reason (its error, or a refusal said above the form).
 */
function actionForms(session: OperatorSession, row: FleetRow, sentAs: (form: string) => PhoneForm | undefined): Html {
  const d = row.device;
  // The form that was sent stays on the page with its error, even when the state has moved on.
  const sent = (['pause', 'resume', 'release'] as const).find((id) => sentAs(id));
  const form = (id: keyof typeof ACTIONS) =>
    actionForm(session, { id, ...ACTIONS[id], level: 3, action: `${devicePath(d.id)}/${id}`, sent: sentAs(id) });
  const hold = (d.paused && sent !== 'pause') || sent === 'resume' ? 'resume' : 'pause';
  const release = d.health === 'healthy' && sent !== 'release' ? '' : form('release');
  return html`${form(hold)}\n${release}\n${form('rotate-key')}`;
}

export function devicePage(
  session: OperatorSession,
  row: FleetRow,
  options: DevicePageOptions & {
    telemetry: { from: Date; to: Date; points: TelemetryPoint[] };
    failures: FailureView[];
  },
): Html {
  const d = row.device;
  const chart = telemetryChart('telemetry', options.telemetry);
  const reveal = options.rotatedKey
    ? revealOnce({
        id: 'new-device-key',
        heading: options.keyIsNew ? 'Phone added: its device key' : 'New device key',
        label: 'Device key for X-Phone-Key',
        secret: options.rotatedKey,
        explain: options.keyIsNew
          ? 'Put it in the phone app. Cellgate keeps only a hash of it.'
          : 'The old key stopped working; put this one in the phone app. Cellgate keeps only a hash of it.',
      })
    : '';
  // An SMSGate phone has no number until the operator sets one of its SIM lines'.
  const number = d.phone_number ?? d.id;
  const label = d.label ? `${number} (${d.label})` : number;
  const sentAs = (form: string) => (options.sent?.form === form ? options.sent : undefined);
  const title = options.sent ? `Error: Phone ${label}` : `Phone ${label}`;
  return sectionPage(
    { session, current: 'fleet' },
    title,
    html`${crumbs([[`${BASE}/fleet`, 'Fleet']], number)}
<h1>Phone <span class="mono">${number}</span>${d.label ? html` <span class="small">${d.label}</span>` : ''}</h1>
${options.notice ?? ''}
${reveal}
${facts([
  ['Device', html`<span class="mono">${d.id}</span>`],
  ['Presence', presence(row)],
  ['Cell', row.cell_name ? html`${row.cell_name} <span class="small mono">${d.cell_id ?? ''}</span>` : 'No cell'],
  ['Organization', row.organization_id ? organizationLink(row.organization_id, row.organization_name, '') : 'None'],
  row.lines.length > 0 && ['SIM lines', simLines(row.lines)],
  ['Battery', battery(row)],
  ['Signal', d.signal_dbm === null ? 'Not reported' : `${d.signal_dbm} dBm`],
  ['App', d.app_version || 'Not reported'],
  ['Capabilities', capabilities(row)],
  ['Health', health(row)],
  ['Send rate', `${d.send_rate_per_minute} segments per minute, ${d.daily_send_limit} per day`],
  [`Queued for its ${row.lines.length > 1 ? 'cells' : 'cell'}`, row.queued],
  ['Last 24 hours', `${d.sent_24h} sent, ${d.failed_24h} failed`],
])}
<p><a href="${BASE}/audit?target_id=${encodeURIComponent(d.id)}">Operator actions on this phone</a></p>
${section(
  'telemetry',
  'Battery and signal, last 24 hours',
  html`${chart ?? ''}
${telemetryTable(options.telemetry.points)}`,
)}
${section('failures', 'Recent failures', failuresTable(options.failures))}
${d.agent === 'smsgate' ? simLinesSection(session, d, sentAs('sims')) : ''}
${phoneSettingsSection(session, d, sentAs('settings'))}
${section('actions', 'Actions', actionForms(session, row, sentAs))}`,
  );
}
