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
export type MailNotice = { mailed: true } | { mailed: false; code: string | null };

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

/** The lead paragraph of a code page (role=status: a screen reader hears it on arrival). */
export function codeSentLead(email: string, notice: MailNotice): Html {
  if (notice.mailed)
    return html`<p class="lead" role="status">
      We have sent a 6-digit code to <strong>${email}</strong>. It expires in 10 minutes.
    </p>`;
  return html`<div role="status" class="notice">
    <p class="lead">
      No email was sent: this server has no mail configured (<span class="mono">CELLGATE_SMTP_URL</span> is not set).
      The 6-digit code for <strong>${email}</strong> went to the dev outbox, which the operator reads on the
      <a href="${CONSOLE_PATH}/operator/outbox">Outbox page</a> of the operator console (or at
      <span class="mono">GET /v1/admin/outbox</span>). It expires in 10 minutes.
    </p>
    ${
      notice.code &&
      html`<p>
        This server runs on a loopback address, so here is the code:
        <strong class="mono" id="outbox-code">${notice.code}</strong>
      </p>`
    }
  </div>`;
}

/** The sign-in code page's lead: it never tells whether the email has an organization, nor shows the code. */
export function signInCodeLead(email: string, mailed: boolean): Html {
  if (mailed)
    return html`<p class="lead" role="status">
      If <strong>${email}</strong> belongs to a Cellgate organization, we have sent it a 6-digit code. It expires in 10
      minutes.
    </p>`;
  return html`<p class="lead notice" role="status">
    No email was sent: this server has no mail configured (<span class="mono">CELLGATE_SMTP_URL</span> is not set). If
    <strong>${email}</strong> belongs to a Cellgate organization, its 6-digit code went to the dev outbox, which the
    operator reads on the <a href="${CONSOLE_PATH}/operator/outbox">Outbox page</a> of the operator console. It expires
    in 10 minutes.
  </p>`;
}
