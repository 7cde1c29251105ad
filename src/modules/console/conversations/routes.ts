// The console's cells with their online state, and a conversation view per cell (a thread, a send
// and a reply form) with live updates (Server-Sent Events, cells.js). Pages work without the
// script: a reload shows the current state. Reads and sends go through the same services as the
// API, so what the console shows and refuses is what the API would.
import { readFileSync } from 'node:fs';
import type { App } from '../../../http/types.ts';
import { normalizePhone } from '../../../lib/phone.ts';
import type { CellView } from '../../cells/service.ts';
import type { MessageView } from '../../messages/views.ts';
import { consoleBinder, type Answer, type Ask, type SectionOptions } from '../binder.ts';
import { contextOf, type SignedInContext } from '../guard.ts';
import { CONSOLE_PATH } from '../http.ts';
import type { ConsoleModule } from '../module.ts';
import { actAsConsole } from '../act.ts';
import { HIDDEN, noticeOf, PUBLIC } from '../account/shared.ts';
import { asset } from '../routes.ts';
import { cellNotFoundPage, messagePage } from '../pages.ts';
import { phone } from './format.ts';
import { concernsCell, pageLive, type LiveRender } from './live.ts';
import {
  cellPage,
  cellPath,
  cellRow,
  cellsPage,
  cellState,
  conversationItem,
  messageItem,
  participantOf,
  threadPath,
  threadPage,
} from './pages.ts';
import { hasError, readSendForm, refusedForm, sendIdOf, type SendForm } from './send-form.ts';

const SCRIPT = readFileSync(new URL('cells.js', import.meta.url), 'utf8');
const PAGE = 50;
// A 1600-character text of 3-byte characters is 14,400 bytes once form-encoded; the console's
// parser allows 8 KiB by default.
const SEND_BODY_LIMIT = 32 * 1024;

/** The send form's keys, apart from the API's and MCP's. */
const CONSOLE_SEND = 'console:send';

const THREAD_NOTICES: Record<string, string> = {
  ignored: 'Ignored on this cell: their texts are kept without events or webhooks.',
  unignored: 'No longer ignored on this cell.',
};
/** What the live view says aloud of a message's event (the others change the page quietly). */
const ANNOUNCED: Record<string, (who: string) => string> = {
  'message.received': (who) => `New message from ${who}.`,
  'message.failed': (who) => `A message to ${who} failed.`,
};
/** A cell read for a page, with the outbox position its live stream starts after. */
type OpenedCell = { cell: CellView; after: number };

/** What the live view sends for an event of the cell: the pieces of the page it replaces. */
function liveRender(context: SignedInContext): LiveRender {
  return (envelope) => {
    if (!envelope.type.startsWith('message.'))
      return { event: 'cell-update', data: { state: cellState(context, envelope.data as CellView) } };
    const message = envelope.data as MessageView;
    const participant = participantOf(message);
    return {
      event: 'message-update',
      data: {
        id: message.id,
        participant,
        updated_at: message.updated_at,
        thread: messageItem(message),
        conversation: conversationItem(context, message.cell_id, participant, message),
        announce: ANNOUNCED[envelope.type]?.(phone(participant)) ?? '',
      },
    };
  };
}

/** What the cells list's live view sends for a cell event: the cell's row. */
const listRender =
  (context: SignedInContext): LiveRender =>
  ({ data }) => ({ event: 'cell-row', data: { id: data.id, row: cellRow(context, data as CellView) } });

/** The Cells section's binding: an unknown, released or another organization's cell is its 404. */
export const CELLS_SECTION: SectionOptions = {
  section: 'cells',
  back: { href: `${CONSOLE_PATH}/cells`, text: 'See your cells' },
  missing: 'cell',
  notFound: (context) => cellNotFoundPage(context, CELLS_SECTION.back),
};

/** The cells page's script (progressive enhancement): public, like the stylesheet. */
export const registerCellsScript = (app: App) =>
  app.get(`${CONSOLE_PATH}/cells.js`, { config: PUBLIC, schema: HIDDEN }, asset('text/javascript', SCRIPT));

export function registerConversationPages(scope: App, module: ConsoleModule): void {
  const { dashboard } = module;
  const { cells } = dashboard;
  const { messages } = dashboard.messaging;
  const { events } = dashboard.eventing;
  const live = pageLive(scope, module);
  const bind = consoleBinder(scope, module, CELLS_SECTION);

  /**
   * The session's cell (not_found when it is unknown, released or another organization's, never
   * told apart); with the outbox's end read first, so the page's live stream starts before
   * anything the page shows (what changes in between is replayed, never missed).
   */
  async function openCell({ session, params }: Ask): Promise<OpenedCell> {
    const after = await events.latestSeq();
    return { cell: await cells.get(session.organizationId, params.cell_id), after };
  }

  /** What was typed before a payment, when the card page leads back (the billing link of a refused send). */
  const typedOf = ({ query }: Ask): SendForm => ({
    to: query.to?.slice(0, 32) || undefined,
    body: query.body?.slice(0, 2000) || undefined,
  });

  /** The cell's page, or with a participant the thread with them; `form` is its send form (its status the page's). */
  async function show(ask: Ask, { cell, after }: OpenedCell, participant?: string, form = typedOf(ask)) {
    const { session, context, query } = ask;
    const { organizationId } = session;
    const cursor = query.cursor || undefined;
    // None on older pages (a cursor): new messages belong on the first.
    const view = { cell, form, liveUrl: cursor ? null : `${cellPath(context, cell.id)}/live?after=${after}` };
    if (participant) {
      // The page is about this party: their texts show even while ignored.
      const page = await messages.list(organizationId, cell.id, {
        participant,
        limit: PAGE,
        cursor,
        include_ignored: true,
      });
      const ignored = await dashboard.ignoredOn(organizationId, cell.id, participant);
      const notice = noticeOf(query, THREAD_NOTICES);
      const thread = { participant, messages: page.messages, olderCursor: page.next_cursor, ignored, notice };
      return ask.send(form.status ?? 200, threadPage(context, { ...view, ...thread }));
    }
    const page = await messages.listConversations(organizationId, cell.id, { limit: PAGE, cursor });
    const ids = page.conversations.flatMap((c) => (c.last_message_id ? [c.last_message_id] : []));
    const byId = new Map((await messages.getMany(organizationId, cell.id, ids)).map((m) => [m.id, m]));
    const conversations = page.conversations.map(({ participant, last_message_id: id }) => ({
      participant,
      latest: id ? byId.get(id) : undefined,
    }));
    return ask.send(form.status ?? 200, cellPage(context, { ...view, conversations, nextCursor: page.next_cursor }));
  }

  /**
   * A binding of the cell's page, or of the thread its address names (the participant in E.164,
   * however the address wrote it); an address naming no number is the thread's 404.
   */
  const onPage = (run: (ask: Ask, opened: OpenedCell, participant?: string) => Promise<Answer>) => async (ask: Ask) => {
    const opened = await openCell(ask);
    const given = ask.params.participant;
    const participant = given === undefined ? undefined : normalizePhone(given);
    if (participant !== null) return run(ask, opened, participant);
    return ask.send(
      404,
      messagePage(
        ask.context,
        'Conversation not found',
        'The address does not name a phone number in international form, like +14155550123.',
        { href: cellPath(ask.context, opened.cell.id), text: 'See the conversations of this cell' },
      ),
    );
  };

  /**
   * Both send forms: check, send through the send operation, 303 to the thread; or the page again
   * with the errors. A reply's number is the thread's participant.
   */
  async function send(ask: Ask, opened: OpenedCell, fixedTo?: string) {
    const again = (form: SendForm) => show(ask, opened, fixedTo, form);
    const form = readSendForm(ask.body, fixedTo);
    if (hasError(form)) return again(form);
    // With the form's send_id, under that key (as the API's Idempotency-Key): a second submit
    // of the same form answers the first's message, or its refusal, and sends nothing.
    const sendId = sendIdOf(ask.body);
    try {
      const sent = await actAsConsole<MessageView>(
        dashboard.invoker,
        ask.session,
        dashboard.messaging.operations.sendMessage,
        { cell_id: opened.cell.id, to: form.to, body: form.body },
        sendId ? { idempotencyKey: sendId, idempotency: { route: CONSOLE_SEND } } : {},
      );
      return `${threadPath(ask.context, opened.cell.id, sent.to)}#message-${sent.id}`;
    } catch (error) {
      const refused = refusedForm(error, form, fixedTo === undefined);
      if (refused) return again(refused);
      throw error;
    }
  }

  bind.view(`${CONSOLE_PATH}/cells`, async ({ session, context, query }) => {
    const cursor = query.cursor || undefined;
    // The outbox's end first: the list's live stream replays whatever changes after it.
    const after = await events.latestSeq();
    const page = await cells.list(session.organizationId, undefined, { limit: PAGE, cursor });
    // Only the first page is live: a new cell belongs at its top.
    const liveUrl = cursor ? null : `${CONSOLE_PATH}/cells/live?after=${after}`;
    const notice = noticeOf(query, { released: 'Cell released: its number is no longer yours.' });
    return cellsPage(context, { cells: page.cells, nextCursor: page.next_cursor, liveUrl, notice });
  });

  // The cell's page and a thread's, each with its send form.
  for (const page of [`${CONSOLE_PATH}/cells/:cell_id`, `${CONSOLE_PATH}/cells/:cell_id/conversations/:participant`]) {
    bind.view(page, onPage(show));
    bind.post(`${page}/messages`, { route: { bodyLimit: SEND_BODY_LIMIT }, run: onPage(send) });
  }

  // Ignoring the other party on this cell, or no longer: the API's ignore list of the cell.
  for (const action of ['ignore', 'unignore'] as const)
    bind.post(`${CONSOLE_PATH}/cells/:cell_id/conversations/:participant/${action}`, {
      run: onPage(async (ask, { cell }, participant) => {
        const ops = dashboard.pods.ignore.cell;
        await ask.call(action === 'ignore' ? ops.add : ops.remove, { cell_id: cell.id, participant });
        return `${threadPath(ask.context, cell.id, participant)}?notice=${action}d#ignore`;
      }),
    });

  live.route(`${CONSOLE_PATH}/cells/live`, (_request, session) => ({
    concerns: concernsCell(null),
    render: listRender(contextOf(session, 'cells')),
  }));
  live.route(
    `${CONSOLE_PATH}/cells/:cell_id/live`,
    async (request, session) => {
      const { id } = await cells.get(session.organizationId, (request.params as { cell_id: string }).cell_id);
      return { concerns: concernsCell(id), render: liveRender(contextOf(session, 'cells')) };
    },
    'No such cell.',
  );
}
