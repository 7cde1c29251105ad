// The dev outbox as a page (GET /console/operator/outbox[?to=&cursor=]): without SMTP
// (CELLGATE_SMTP_URL unset) the service sends no mail and keeps it here instead, sign-up and
// sign-in codes included; newest first, 25 a page, through the admin API's list_outbox_mail.
import type { App } from '../../../http/types.ts';
import { html, type Html } from '../../../lib/html.ts';
import { nextPage, when } from '../account/shared.ts';
import { dataTable } from '../data-table.ts';
import { field, filterForm } from '../layout.ts';
import { badRequest, OPERATOR_PATH } from './http.ts';
import type { OutOf } from '../binder.ts';
import { sectionPage } from './layout.ts';
import { operatorBinder, type OperatorConsole } from './module.ts';
import type { OperatorSession } from './service.ts';

const PAGE_SIZE = 25;
const OUTBOX_PATH = `${OPERATOR_PATH}/outbox`;

type OutboxList = OutOf<OperatorConsole['operations']['admin']['listOutboxMail']>;

export function outboxPage(session: OperatorSession, list: OutboxList, options: { to: string; mailed: boolean }): Html {
  const body = html`<h1>Outbox</h1>
<p class="lead">${
    options.mailed
      ? 'Mail is sent by SMTP (CELLGATE_SMTP_URL). Mail kept before SMTP was configured stays listed here.'
      : 'No mail is configured (CELLGATE_SMTP_URL is not set), so the service sends no email: every mail, sign-up and sign-in codes included, is kept here instead, newest first.'
  }</p>
${filterForm(OUTBOX_PATH, field({ id: 'outbox-to', name: 'to', label: 'To', type: 'email', value: options.to, optional: true, attributes: html`maxlength="254" spellcheck="false"` }))}
${dataTable({
  caption: 'Kept mail, newest first',
  scrollId: 'outbox-caption',
  empty: html`No mail kept${options.to ? html` for <strong>${options.to}</strong>` : ''}.`,
  rows: list.messages,
  columns: [
    { label: 'When', value: (mail) => when(mail.created_at) },
    { label: 'To', value: (mail) => mail.to },
    { label: 'Subject', value: (mail) => mail.subject },
    { label: 'Text', value: (mail) => html`<pre class="mail-text">${mail.text}</pre>` },
  ],
  more: nextPage(OUTBOX_PATH, list.next_cursor, 'Older mail', { to: options.to }),
})}`;
  return sectionPage({ session, current: 'outbox' }, 'Outbox', body);
}

export function registerOutboxPage(scope: App, operator: OperatorConsole): void {
  const back = { href: OUTBOX_PATH, text: 'See all kept mail' };
  const bind = operatorBinder(scope, operator, { back, missing: 'mail', gone: 'No mail has this id.' });
  bind.view(OUTBOX_PATH, async (ask) => {
    const to = (ask.query.to ?? '').trim();
    if (to.length > 254) return badRequest(ask, back);
    const list = await ask.call(operator.operations.admin.listOutboxMail, {
      limit: PAGE_SIZE,
      cursor: ask.query.cursor || undefined,
      to: to || undefined,
    });
    return outboxPage(ask.session, list, { to, mailed: operator.mailed });
  });
}
