// The dev outbox as a page (GET /console/operator/outbox[?to=&cursor=]): without SMTP
// (CELLGATE_SMTP_URL unset) the service sends no mail and keeps it here instead, sign-up and
// sign-in codes included; newest first, 25 a page, through the admin API's list_outbox_mail.
import type { App } from '../../../http/types.ts';
import { ApiError } from '../../../lib/errors.ts';
import { html, type Html } from '../../../lib/html.ts';
import { when } from '../account/shared.ts';
import { badListLink, OPERATOR_PATH } from './http.ts';
import { sectionPage } from './layout.ts';
import { operatorBinder, type OperatorConsole } from './module.ts';
import type { OperatorSession } from './service.ts';

const PAGE_SIZE = 25;
const OUTBOX_PATH = `${OPERATOR_PATH}/outbox`;

type OutboxList = {
  messages: { id: string; to: string; subject: string; text: string; created_at: string }[];
  next_cursor: string | null;
};

export function outboxPage(session: OperatorSession, list: OutboxList, options: { to: string; mailed: boolean }): Html {
  const more = new URLSearchParams();
  if (options.to) more.set('to', options.to);
  if (list.next_cursor) more.set('cursor', list.next_cursor);
  const body = html`<h1>Outbox</h1>
    <p class="lead">
      ${
        options.mailed
          ? 'Mail is sent by SMTP (CELLGATE_SMTP_URL). Mail kept before SMTP was configured stays listed here.'
          : 'No mail is configured (CELLGATE_SMTP_URL is not set), so the service sends no email: every mail, sign-up and sign-in codes included, is kept here instead, newest first.'
      }
    </p>
    <form method="get" action="${OUTBOX_PATH}" class="filters">
      <div class="field">
        <label for="outbox-to">To</label>
        <input id="outbox-to" name="to" type="email" value="${options.to}" maxlength="254" spellcheck="false" />
      </div>
      <button type="submit" class="secondary">Show</button>
    </form>
    ${
      list.messages.length === 0
        ? html`<p>No mail kept${options.to ? html` for <strong>${options.to}</strong>` : ''}.</p>`
        : html`<div class="table-scroll" role="region" aria-labelledby="outbox-caption" tabindex="0">
            <table>
              <caption id="outbox-caption">
                Kept mail, newest first
              </caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">To</th>
                  <th scope="col">Subject</th>
                  <th scope="col">Text</th>
                </tr>
              </thead>
              <tbody id="outbox">
                ${list.messages.map(
                  (mail) =>
                    html`<tr>
                      <th scope="row" data-label="When">${when(mail.created_at)}</th>
                      <td data-label="To">${mail.to}</td>
                      <td data-label="Subject">${mail.subject}</td>
                      <td data-label="Text"><pre class="mail-text">${mail.text}</pre></td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    ${list.next_cursor && html`<p class="after"><a href="${OUTBOX_PATH}?${more.toString()}">Older mail</a></p>`}`;
  return sectionPage({ session, current: 'outbox' }, 'Outbox', body);
}

export function registerOutboxPage(scope: App, operator: OperatorConsole): void {
  const back = { href: OUTBOX_PATH, text: 'See all kept mail' };
  const bind = operatorBinder(scope, operator, { back, missing: 'mail' });
  bind.view(OUTBOX_PATH, async ({ session, query, reply, call }) => {
    const to = (query.to ?? '').trim();
    const cursor = query.cursor || undefined;
    try {
      const list = await call(operator.operations.admin.listOutboxMail, {
        limit: PAGE_SIZE,
        ...(cursor ? { cursor } : {}),
        ...(to ? { to } : {}),
      });
      return outboxPage(session, list, { to, mailed: operator.mailed });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'invalid_request') return badListLink(reply, session, back);
      throw error;
    }
  });
}
