// The fleet and device pages: every phone in one table (a row per phone, replaced by the live view
// by its id), and one phone's telemetry, failures and actions. Server-rendered; forms work
// without JavaScript; state is said in words, never by colour alone.
import { html, join, type Html } from '../../../lib/html.ts';
import { revealOnce, stateTag, when } from '../account/shared.ts';
import { telemetryChart, telemetryTable, type TelemetryPoint } from './chart.ts';
import type { FleetFilter, FleetLine, FleetRow } from './fleet.ts';
import { csrfInput, sectionPage } from './layout.ts';
import { tableHead, tableRow, type Column } from '../data-table.ts';
import type { OperatorSession } from './service.ts';
import { devicePath } from './http.ts';
import { phoneSettingsSection, simLinesSection, type PhoneForm } from './inventory-pages.ts';

const BASE = '/console/operator';
export const FLEET_SCRIPTS = ['fleet.js'];

const FILTER_WORDS: Record<FleetFilter, string> = {
  all: 'All phones',
  offline: 'Offline',
  unhealthy: 'Unhealthy',
  paused: 'Paused',
};
const EMPTY_WORDS: Record<FleetFilter, string> = {
  all: 'No phone in the inventory yet.',
  offline: 'Every phone is online.',
  unhealthy: 'Every phone is healthy.',
  paused: 'No phone is paused.',
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
export function health(row: FleetRow, withReason = true): Html {
  const d = row.device;
  const kind = d.health === 'healthy' ? 'ok' : d.health === 'degraded' ? 'warn' : 'bad';
  // A phone starts healthy: until it connects that says nothing (other states came from somewhere).
  const state =
    neverConnected(row) && d.health === 'healthy'
      ? NOT_REPORTED
      : stateTag(kind, d.health.charAt(0).toUpperCase() + d.health.slice(1));
  const reason = withReason && d.health_reason ? html`<br><span class="small">${d.health_reason}</span>` : html``;
  const paused = d.paused
    ? html`<br>${stateTag('idle', 'Paused')}${withReason && d.paused_reason ? html`<br><span class="small">${d.paused_reason}</span>` : ''}`
    : html``;
  return html`${state}${reason}${paused}`;
}

/** Online, offline, or never connected (a phone added whose app has not called yet), with when it was last seen. */
export function presence(row: FleetRow, separator: Html = html` `): Html {
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
  return html`SIM ${line.simNumber} ${line.phoneNumber ? html`<span class="mono">${line.phoneNumber}</span>` : html`<span class="small">no number yet</span>`}`;
}

/** The cell and organization of each SIM line of a dual-SIM phone (two SIMs, two cells); of the phone otherwise. */
function cellsOf(row: FleetRow): Html {
  if (row.lines.length < 2)
    return html`${row.cellName ? row.cellName : noCell}<br>${organizationLink(row.organizationId, row.organizationName, 'Free')}`;
  return join(
    row.lines.map(
      (line) =>
        html`<span class="small">${simOf(line)}:</span> ${line.cellName ?? noCell}${line.cellId ? html` <span class="small">(${organizationLink(line.organizationId, line.organizationName, 'Free')})</span>` : ''}`,
    ),
    html`<br>`,
  );
}

/** One phone's row; the live view replaces it by its id. */
export function fleetRow(row: FleetRow): Html {
  const d = row.device;
  return html`<tr id="device-${d.id}">
<th scope="row"><a href="${devicePath(d.id)}" class="mono">${d.phone_number ?? d.id}</a>${d.label ? html`<br><span class="small">${d.label}</span>` : ''}</th>
<td data-label="Cell and organization">${cellsOf(row)}</td>
<td data-label="Presence">${presence(row, html`<br>`)}</td>
<td data-label="Health">${health(row)}</td>
<td data-label="Battery" class="num">${battery(row)}</td>
<td data-label="Signal" class="num">${d.signal_dbm === null ? dash : `${d.signal_dbm} dBm`}</td>
<td data-label="Queued" class="num">${row.queued}</td>
<td data-label="Sent / failed (24 h)" class="num">${d.sent_24h} / ${d.failed_24h > 0 ? stateTag('warn', String(d.failed_24h)) : '0'}</td>
<td data-label="Send rate" class="num">${d.send_rate_per_minute}/min<br><span class="small">${d.daily_send_limit}/day</span></td>
<td data-label="App and capabilities">${d.app_version ? html`<span class="mono small">${d.app_version}</span>` : dash}<br>${capabilities(row)}</td>
</tr>`;
}

const FLEET_HEAD = html`<thead><tr><th scope="col">Phone</th><th scope="col">Cell and organization</th><th scope="col">Presence</th><th scope="col">Health</th><th scope="col" class="num">Battery</th><th scope="col" class="num">Signal</th><th scope="col" class="num">Queued</th><th scope="col" class="num">Sent / failed (24 h)</th><th scope="col" class="num">Send rate</th><th scope="col">App and capabilities</th></tr></thead>`;

export function fleetPage(
  session: OperatorSession,
  rows: FleetRow[],
  options: { filter: FleetFilter; liveUrl: string | null; summary: string; notice?: Html },
): Html {
  const filters = join(
    (Object.keys(FILTER_WORDS) as FleetFilter[]).map(
      (filter) =>
        html`<a href="${BASE}/fleet${filter === 'all' ? '' : `?filter=${filter}`}"${filter === options.filter ? html` aria-current="page"` : ''}>${FILTER_WORDS[filter]}</a>`,
    ),
    ' · ',
  );
  const live = options.liveUrl
    ? html`<p id="live-status" class="live-status small" role="status" data-live-url="${options.liveUrl}" data-live-text="Live: rows update as phones report.">Reload the page to see changes.</p>`
    : html``;
  const empty = rows.length === 0;
  return sectionPage(
    { session, current: 'fleet', scripts: options.liveUrl ? FLEET_SCRIPTS : [] },
    'Fleet',
    html`<h1>Fleet</h1>
${options.notice ?? ''}
<p class="lead"><span id="fleet-summary">${options.summary}</span> <a class="button secondary small-button" href="${BASE}/devices/new">Add a phone</a></p>
<nav aria-label="Filter phones" class="filters small">${filters}</nav>
${live}
<p id="fleet-empty"${empty ? '' : ' hidden'}>${EMPTY_WORDS[options.filter]}</p>
<div class="table-scroll" role="region" aria-labelledby="fleet-caption" tabindex="0">
<table class="fleet-table"${empty ? ' hidden' : ''}>
<caption id="fleet-caption">${FILTER_WORDS[options.filter]}: each phone with its cell, presence, telemetry and the last 24 hours</caption>
${FLEET_HEAD}
<tbody id="fleet">
${join(rows.map(fleetRow), '\n')}
</tbody>
</table>
</div>`,
  );
}

/** Each SIM line with its carrier, and the cell it carries with that cell's organization. */
function simLines(lines: FleetLine[]): Html {
  const item = (line: FleetLine) =>
    html`<li>${simOf(line)}${line.carrier ? html` <span class="small">${line.carrier}</span>` : ''}: ${
      line.cellId
        ? html`${line.cellName ?? ''} <span class="small mono">${line.cellId}</span>, ${organizationLink(line.organizationId, line.organizationName, 'None')}`
        : 'No cell'
    }</li>`;
  return html`<ul>${join(lines.map(item), '\n')}</ul>`;
}

export interface FailureView {
  id: string;
  cell_id: string;
  to_number: string;
  segments: number;
  attempts: number;
  error_code: string | null;
  error_message: string | null;
  failed_at: string | null;
}

const FAILURE_COLUMNS: readonly Column[] = [
  { label: 'Message', className: 'mono' },
  'Failed',
  { label: 'To', className: 'mono' },
  'Error code',
  'Error message',
  { label: 'Attempts', numeric: true },
];

function failuresTable(failures: FailureView[]): Html {
  if (failures.length === 0) return html`<p>No failed message on this phone.</p>`;
  const rows = join(
    failures.map((f) =>
      tableRow(
        FAILURE_COLUMNS,
        [
          f.id,
          when(f.failed_at, 'Unknown'),
          f.to_number,
          html`<span class="tag mono">${f.error_code ?? 'no code'}</span>`,
          f.error_message ? f.error_message : dash,
          f.attempts,
        ],
        { rowHeader: true },
      ),
    ),
    '\n',
  );
  return html`<div class="table-scroll" role="region" aria-labelledby="failures-caption" tabindex="0"><table>
<caption id="failures-caption">The phone's latest failed messages, newest first</caption>
${tableHead(FAILURE_COLUMNS)}
<tbody>
${rows}
</tbody>
</table></div>`;
}

/** What a device page says besides the phone: a key shown once, a notice, a form's error. */
export interface DevicePageOptions {
  rotatedKey?: string;
  /** The key shown is a new phone's (added), not a rotated one's. */
  keyIsNew?: boolean;
  /** The settings form as sent, with its errors. */
  settingsForm?: PhoneForm;
  /** The SIM numbers form as sent, with its errors. */
  simsForm?: PhoneForm;
  notice?: Html;
  /** A form's error: on its reason field, or (refusal) said above the form. */
  formError?: { form: string; error: string; reason: string; refusal?: boolean };
}

/** The optional reason of an action form, kept in the audit log (its error when too long). */
function reasonInput(form: string, options: DevicePageOptions, required = false): Html {
  const mine = options.formError?.form === form && !options.formError.refusal ? options.formError : undefined;
  return html`<div class="field">
<label for="${form}-reason">Reason${required ? '' : ' (optional)'}</label>
<input id="${form}-reason" name="reason" type="text" value="${mine?.reason ?? ''}" maxlength="500" autocomplete="off"${required ? ' required' : ''}${mine ? html` aria-invalid="true" aria-describedby="${form}-reason-error"` : ''}>
${mine ? html`<p class="field-error" id="${form}-reason-error">${mine.error}</p>` : ''}
</div>`;
}

/** Pause or resume, and release when the phone is not healthy; each with its reason. */
function holdForms(session: OperatorSession, row: FleetRow, options: DevicePageOptions): Html {
  const d = row.device;
  const form = (action: 'pause' | 'resume' | 'release', heading: string, explain: string, button: string) => {
    const refusal =
      options.formError?.form === action && options.formError.refusal
        ? html`<div class="notice error" role="alert">${options.formError.error}</div>`
        : html``;
    return html`<h3>${heading}</h3>
<p class="small">${explain}</p>
${refusal}
<form method="post" action="${devicePath(d.id)}/${action}" novalidate>
${csrfInput(session)}
${reasonInput(action, options, true)}
<button type="submit" class="${action === 'pause' ? 'danger' : 'primary'}">${button}</button>
</form>`;
  };
  // The form that was sent stays on the page with its error, even when the state has moved on.
  const sent = options.formError?.form;
  const hold =
    (d.paused && sent !== 'pause') || sent === 'resume'
      ? form('resume', 'Resume', 'The phone claims messages again (unless it is quarantined).', 'Resume phone')
      : form('pause', 'Pause', 'The phone keeps its cell but claims nothing until resumed.', 'Pause phone');
  const release =
    d.health === 'healthy' && sent !== 'release'
      ? ''
      : form(
          'release',
          'Release',
          'You vouch for the SIM: the phone is healthy again and its earlier failures no longer count.',
          'Release phone',
        );
  return html`${hold}\n${release}`;
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
  const settingsFailed = [options.settingsForm, options.simsForm].some(
    (form) => form && (form.notice || Object.keys(form.errors).length > 0),
  );
  const title = options.formError || settingsFailed ? `Error: Phone ${label}` : `Phone ${label}`;
  return sectionPage(
    { session, current: 'fleet' },
    title,
    html`<nav aria-label="Breadcrumb" class="crumbs"><ol><li><a href="${BASE}/fleet">Fleet</a></li><li><span aria-current="page">${number}</span></li></ol></nav>
<h1>Phone <span class="mono">${number}</span>${d.label ? html` <span class="small">${d.label}</span>` : ''}</h1>
${options.notice ?? ''}
${reveal}
<dl class="facts">
<dt>Device</dt><dd class="mono">${d.id}</dd>
<dt>Presence</dt><dd>${presence(row)}</dd>
<dt>Cell</dt><dd>${row.cellName ? html`${row.cellName} <span class="small mono">${d.cell_id ?? ''}</span>` : 'No cell'}</dd>
<dt>Organization</dt><dd>${row.organizationId ? html`<a href="${BASE}/organizations/${encodeURIComponent(row.organizationId)}">${row.organizationName ?? row.organizationId}</a>` : 'None'}</dd>
${row.lines.length > 0 ? html`<dt>SIM lines</dt><dd>${simLines(row.lines)}</dd>` : ''}
<dt>Battery</dt><dd>${battery(row)}</dd>
<dt>Signal</dt><dd>${d.signal_dbm === null ? 'Not reported' : `${d.signal_dbm} dBm`}</dd>
<dt>App</dt><dd>${d.app_version ? d.app_version : 'Not reported'}</dd>
<dt>Capabilities</dt><dd>${capabilities(row)}</dd>
<dt>Health</dt><dd>${health(row)}</dd>
<dt>Send rate</dt><dd>${d.send_rate_per_minute} segments per minute, ${d.daily_send_limit} per day</dd>
<dt>Queued for its ${row.lines.length > 1 ? 'cells' : 'cell'}</dt><dd>${row.queued}</dd>
<dt>Last 24 hours</dt><dd>${row.device.sent_24h} sent, ${row.device.failed_24h} failed</dd>
</dl>
<p><a href="${BASE}/audit?target_id=${encodeURIComponent(d.id)}">Operator actions on this phone</a></p>
<section aria-labelledby="telemetry-heading">
<h2 id="telemetry-heading">Battery and signal, last 24 hours</h2>
${chart ?? ''}
${telemetryTable(options.telemetry.points)}
</section>
<section aria-labelledby="failures-heading">
<h2 id="failures-heading">Recent failures</h2>
${failuresTable(options.failures)}
</section>
${d.agent === 'smsgate' ? simLinesSection(session, d, options.simsForm) : ''}
${phoneSettingsSection(session, d, options.settingsForm)}
<section aria-labelledby="actions-heading">
<h2 id="actions-heading">Actions</h2>
${holdForms(session, row, options)}
<h3>Device key</h3>
<form method="post" action="${devicePath(d.id)}/rotate-key">
${csrfInput(session)}
<p class="small">Rotating the key stops the old one at once; the new key is shown once, here.</p>
${reasonInput('rotate-key', options)}
<button type="submit" class="danger">Rotate device key</button>
</form>
</section>`,
  );
}
