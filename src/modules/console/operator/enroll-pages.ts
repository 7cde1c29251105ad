// The pages of a phone's enrollment for the SMSGate app (routes in enroll.ts, contract §13): the
// server URL, the private token, the code and a QR code of them, shown once after the operator
// made the enrollment, with the Termux command beside it for a phone that runs Termux instead.
import type QRCodeModule from 'qrcode';
import { onFirstUse } from '../../../lib/on-first-use.ts';
import { revealOnce } from '../account/shared.ts';
import { html, raw, type Html } from '../../../lib/html.ts';
import { confirmForm, crumbs } from '../layout.ts';
import type { OutOf } from '../binder.ts';
import type { EnrollmentOperations } from '../../devices/enrollment-operations.ts';
import { OPERATOR_PATH } from './http.ts';
import { sectionPage } from './layout.ts';
import type { OperatorSession } from './service.ts';

/** The QR code drawer, loaded on the first enrollment shown (idle service memory, issue 36). */
const qrcode = onFirstUse<typeof QRCodeModule>('qrcode');

export const enrollmentPath = (id: string) => `${OPERATOR_PATH}/devices/enrollments/${encodeURIComponent(id)}`;

/** What the page shows once of the enrollment the API answered (its secrets). */
export const SHOWN = ['id', 'token', 'code', 'server_url', 'code_expires_at', 'expires_at'] as const;
export type ShownEnrollment = Pick<OutOf<EnrollmentOperations['createEnrollment']>, (typeof SHOWN)[number]>;

/**
 * The QR code's text: the app's settings import format with the gateway module only
 * (GatewaySettings.kt keys; docs/decisions.md, "The SMSGate QR code").
 */
export const qrText = (serverUrl: string, token: string) =>
  JSON.stringify({ gateway: { cloud_url: serverUrl, private_token: token, notification_channel: 'SSE_ONLY' } });

/**
 * The QR code as an inline SVG, 240 px square, in a wrapper labelled for assistive technology.
 * Trusted markup: `qrcode` draws it from the text's modules (one path), so nothing of the text
 * appears in it.
 */
async function qrSvg(text: string): Promise<Html> {
  const svg = await qrcode().toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, width: 240 });
  return html`<div class="qr" role="img" aria-labelledby="qr-caption">${raw(svg)}</div>`;
}

/** The Termux agent's start command for the service at `baseUrl` (docs/android.md, B3). */
export const termuxCommand = (baseUrl: string) =>
  `curl -fsSLO ${baseUrl}/v1/device/agent.mjs && node agent.mjs run --key cg_dev_... --base-url ${baseUrl}`;

const termuxAside = (baseUrl: string) => html`<aside aria-labelledby="termux-heading" class="card">
<h2 id="termux-heading">Or with Termux</h2>
<p>A phone without the app runs the Cellgate agent in Termux: <a href="${OPERATOR_PATH}/devices/new#termux">add it by its number</a> for a device key, then run on the phone:</p>
<pre class="mono"><code>${termuxCommand(baseUrl)}</code></pre>
<p class="small">One SIM, no delivery reports; Android 12 and later need the phantom-process killer turned off (docs/android.md).</p>
</aside>`;

const trail = crumbs(
  [
    [`${OPERATOR_PATH}/fleet`, 'Fleet'],
    [`${OPERATOR_PATH}/devices/new`, 'Add a phone'],
  ],
  'Enrollment',
);

export async function enrollmentPage(
  session: OperatorSession,
  enrollment: ShownEnrollment,
  baseUrl: string,
): Promise<Html> {
  const plainHttp = !enrollment.server_url.startsWith('https://');
  return sectionPage(
    { session, current: 'fleet' },
    'Enroll a phone',
    html`<div class="enroll">
${trail}
<h1>Enroll a phone with the SMSGate app</h1>
${revealOnce({ id: 'private-token', heading: 'Private token', label: 'Private token (Settings → Cloud server → Private token)', secret: enrollment.token, explain: `It works once, until ${enrollment.expires_at}. Cellgate keeps only a hash of it.` })}
<dl>
<dt>Server URL (Settings → Cloud server → API URL)</dt><dd><input id="server-url" class="mono" type="text" value="${enrollment.server_url}" readonly spellcheck="false" aria-label="Server URL"></dd>
<dt>Code (Sign in → By code)</dt><dd><span class="mono" id="code">${enrollment.code}</span> (valid until ${enrollment.code_expires_at})</dd>
</dl>
${plainHttp && html`<div class="notice error" role="alert"><p>The app accepts only an <span class="mono">https://</span> server URL: put the service behind TLS (CELLGATE_BASE_URL) before enrolling a real phone.</p></div>`}
<figure>
${await qrSvg(qrText(enrollment.server_url, enrollment.token))}
<figcaption id="qr-caption">QR code of the server URL and the private token, in the app's settings format: scan it with the phone's camera to copy them.</figcaption>
</figure>
<ol>
<li>Install SMS Gateway for Android from its GitHub releases (v1.68.0 or later) and grant SMS and Phone.</li>
<li>Settings → Cloud server: the API URL and private token above; Notification channel: SSE Only.</li>
<li>On the home screen, turn on Cloud server and Start on boot, then start the app. Each SIM with a number becomes a cell.</li>
</ol>
${termuxAside(baseUrl)}
</div>`,
  );
}

/** The enrollment's page without its secrets (a reload, or another operator): revoke it, or make a new one. */
export function enrollmentShownPage(session: OperatorSession, id: string): Html {
  return sectionPage(
    { session, current: 'fleet' },
    'Enrollment',
    html`${trail}
<h1>Enrollment <span class="mono">${id}</span></h1>
<p>Its private token and code were shown once, when it was made. If they were lost, revoke it and make a new one.</p>
${confirmForm({
  action: `${enrollmentPath(id)}/revoke`,
  csrfToken: session.csrfToken,
  confirm: 'Revoke enrollment',
  keep: { href: `${OPERATOR_PATH}/devices/new`, text: 'Make a new one' },
})}`,
  );
}
