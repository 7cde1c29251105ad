// Where a mailed code went, said on the page that asks for it. With SMTP: "We have sent a 6-digit
// code". Without (CELLGATE_SMTP_URL unset) nothing is sent: the page says so and points to the
// dev outbox (the operator console's Outbox page); on a loopback base URL, a machine nobody else
// reaches, it shows the code itself, read from that outbox.
import { html, type Html } from '../../lib/html.ts';
import type { Mailer } from '../../lib/mailer.ts';
import { CONSOLE_PATH } from './http.ts';

/** Only a sign-up's verification code is ever shown (OrganizationsService.signUp's subject), never a sign-in code. */
const VERIFICATION_SUBJECT = /^Your Cellgate verification code: (\d{6})$/;

/** How the page tells where the code is: mailed, or kept in the outbox (with the code when it may be shown). */
export type MailNotice = { mailed: boolean; code?: string | null };

/**
 * The notice for the latest verification mail to an address; its code only on a loopback base URL
 * (`showCode`) and when the page may show it (`own`: the address is the page's own sign-up's).
 */
export function mailNoticeOf(mailer: Mailer, showCode: boolean) {
  return async (email: string, own = true): Promise<MailNotice> => {
    const { outbox } = mailer;
    if (!outbox) return { mailed: true };
    if (!showCode || !own) return { mailed: false, code: null };
    const mail = await outbox.latestTo(email.trim().toLowerCase());
    return { mailed: false, code: mail?.subject.match(VERIFICATION_SUBJECT)?.[1] ?? null };
  };
}

/**
 * The lead paragraph of a code page (role=status: a screen reader hears it on arrival). Sign-in's
 * (`signIn`) never tells whether the email has an organization.
 */
export function codeSentLead(email: string, notice: MailNotice, signIn = false): Html {
  const to = html`<strong>${email}</strong>`;
  const owner = html`If ${to} belongs to a Cellgate organization`;
  if (notice.mailed)
    return html`<p class="lead" role="status">${signIn ? html`${owner}, we have sent it a 6-digit code.` : html`We have sent a 6-digit code to ${to}.`} It expires in 10 minutes.</p>`;
  return html`<div role="status" class="notice">
<p class="lead">No email was sent: this server has no mail configured (<span class="mono">CELLGATE_SMTP_URL</span> is not set). ${signIn ? html`${owner}, its 6-digit code` : html`The 6-digit code for ${to}`} went to the dev outbox, which the operator reads on the <a href="${CONSOLE_PATH}/operator/outbox">Outbox page</a> of the operator console (or at <span class="mono">GET /v1/admin/outbox</span>). It expires in 10 minutes.</p>
${notice.code && html`<p>This server runs on a loopback address, so here is the code: <strong class="mono" id="outbox-code">${notice.code}</strong></p>`}
</div>`;
}
