// The console's cells with their online state, and a conversation view per cell with live updates:
//   GET  /console/cells                                         the organization's cells
//   GET  /console/cells/:cell_id                                its conversations, a new-message form
//   GET  /console/cells/:cell_id/conversations/:participant     a thread (newest last), a reply form
//   POST /console/cells/:cell_id/messages                       send (to, body), 303 to the thread
//   POST /console/cells/:cell_id/conversations/:participant/messages   reply (body)
//   GET  /console/cells/:cell_id/live                           Server-Sent Events of the cell
//   GET  /console/cells/live                                    Server-Sent Events of the cells list
//   GET  /console/cells.js                                      the script (progressive enhancement)
// Pages work without the script: a reload shows the current state. Reads and sends go through the
// same services as the API, so what the console shows and refuses is what the API would.
import { readFileSync } from 'node:fs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../../http/types.ts';
import { ApiError, type ErrorCode } from '../../../lib/errors.ts';
import { normalizePhone } from '../../../lib/phone.ts';
import type { CellView } from '../../cells/service.ts';
import type { MessageView } from '../../messages/views.ts';
import { contextOf, redirect, type SignedInContext } from '../guard.ts';
import { CONSOLE_PATH, registerFormParser, sendPage } from '../http.ts';
import type { ConsoleModule } from '../module.ts';
import { actAsConsole, consolePrincipal } from '../act.ts';
import { cellNotFoundPage, messagePage } from '../pages.ts';
import type { ConsoleSession } from '../service.ts';
import { phone } from './format.ts';
import { afterOf, pageLive, plainAnswer, type LiveRender } from './live.ts';
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
import { hasError, readSendForm, refusedForm, sendIdOf, textOf, type SendForm } from './send-form.ts';

const SCRIPT = readFileSync(new URL('cells.js', import.meta.url), 'utf8');
const PAGE = 50;
const PUBLIC = { auth: 'public' as const };
const HIDDEN = { hide: true };
// A 1600-character text of 3-byte characters is 14,400 bytes once form-encoded; the console's
// parser allows 8 KiB by default.
const SEND_BODY_LIMIT = 32 * 1024;

/** The send form's keys, apart from the API's and MCP's. */
const CONSOLE_SEND = 'console:send';

type CellParams = { cell_id: string };

const THREAD_NOTICES: Record<string, string> = {
  ignored: 'Ignored on this cell: their texts are kept without events or webhooks.',
  unignored: 'No longer ignored on this cell.',
};
type ThreadParams = CellParams & { participant: string };
/** A cell read for a page, with the outbox position its live stream starts after. */
type OpenedCell = { cell: CellView; after: number };

/** What the live view sends for an event of the cell: the pieces of the page it replaces. */
function liveRender(context: SignedInContext): LiveRender {
  return (envelope) => {
    if (!envelope.type.startsWith('message.'))
      return { event: 'cell-update', data: { state: cellState(context, envelope.data as CellView) } };
    const message = envelope.data as MessageView;
    const participant = participantOf(message);
    const announce =
      envelope.type === 'message.received'
        ? `New message from ${phone(participant)}.`
        : envelope.type === 'message.failed'
          ? `A message to ${phone(participant)} failed.`
          : '';
    return {
      event: 'message-update',
      data: {
        id: message.id,
        participant,
        updated_at: message.updated_at,
        thread: messageItem(message),
        conversation: conversationItem(context, message.cell_id, participant, message),
        announce,
      },
    };
  };
}

/** What the cells list's live view sends for a cell event: the cell's row. */
const listRender =
  (context: SignedInContext): LiveRender =>
  (envelope) => {
    const cell = envelope.data as CellView;
    return { event: 'cell-row', data: { id: cell.id, row: cellRow(context, cell) } };
  };

export function registerConversationPages(app: App, module: ConsoleModule): void {
  const { guard, dashboard } = module;
  const { cells } = dashboard;
  const { messages } = dashboard.messaging;
  const { events } = dashboard.eventing;
  const live = pageLive(app, module);

  const cellNotFound = (reply: FastifyReply, context: SignedInContext) =>
    sendPage(reply, 404, cellNotFoundPage(context, { href: `${context.path}/cells`, text: 'See your cells' }));
  const conversationNotFound = (reply: FastifyReply, context: SignedInContext, cell: CellView) =>
    sendPage(
      reply,
      404,
      messagePage(
        context,
        'Conversation not found',
        'The address does not name a phone number in international form, like +14155550123.',
        { href: cellPath(context, cell.id), text: 'See the conversations of this cell' },
      ),
    );
  const badLink = (reply: FastifyReply, context: SignedInContext, back: string) =>
    sendPage(
      reply,
      400,
      messagePage(context, 'Page not found', 'This list link is not valid.', { href: back, text: 'Back to the list' }),
    );
  const isCode = (error: unknown, code: string) => error instanceof ApiError && error.code === code;

  /**
   * The session's cell, or null when it is unknown, released or another organization's (never
   * told apart); with the outbox's end read first, so the page's live stream starts before
   * anything the page shows (what changes in between is replayed, never missed).
   */
  async function openCell(session: ConsoleSession, cellId: string): Promise<OpenedCell | null> {
    const after = await events.latestSeq();
    try {
      return { cell: await cells.get(session.organizationId, cellId), after };
    } catch (error) {
      if (isCode(error, 'not_found')) return null;
      throw error;
    }
  }

  /** The page's live stream; none on older pages (a cursor): new messages belong on the first. */
  const liveUrl = ({ cell, after }: OpenedCell, cursor: string | undefined) =>
    cursor ? null : `${CONSOLE_PATH}/cells/${encodeURIComponent(cell.id)}/live?after=${after}`;

  /** What was typed before a payment, when the card page leads back (the billing link of a refused send). */
  const typedOf = (query: unknown): SendForm => ({
    to: textOf(query, 'to').slice(0, 32) || undefined,
    body: textOf(query, 'body').slice(0, 2000) || undefined,
  });

  async function showCell(
    reply: FastifyReply,
    session: ConsoleSession,
    opened: OpenedCell,
    form: SendForm,
    cursor?: string,
  ) {
    const context = contextOf(session, 'cells');
    const { cell } = opened;
    let page: Awaited<ReturnType<typeof messages.listConversations>>;
    try {
      page = await messages.listConversations(session.organizationId, cell.id, { limit: PAGE, cursor });
    } catch (error) {
      if (isCode(error, 'invalid_request')) return badLink(reply, context, cellPath(context, cell.id));
      throw error;
    }
    const latest = await messages.getMany(
      session.organizationId,
      cell.id,
      page.conversations.flatMap((c) => (c.last_message_id ? [c.last_message_id] : [])),
    );
    const byId = new Map(latest.map((message) => [message.id, message]));
    const conversations = page.conversations.map((c) => ({
      participant: c.participant,
      latest: c.last_message_id ? byId.get(c.last_message_id) : undefined,
    }));
    return sendPage(
      reply,
      form.status ?? 200,
      cellPage(context, { cell, conversations, nextCursor: page.next_cursor, liveUrl: liveUrl(opened, cursor), form }),
    );
  }

  async function showThread(
    reply: FastifyReply,
    session: ConsoleSession,
    opened: OpenedCell,
    participant: string,
    form: SendForm,
    cursor?: string,
    notice?: string,
  ) {
    const context = contextOf(session, 'cells');
    const { cell } = opened;
    let page: Awaited<ReturnType<typeof messages.list>>;
    try {
      page = await messages.list(session.organizationId, cell.id, {
        participant,
        limit: PAGE,
        cursor,
        // The page is about this party: their texts show even while ignored.
        include_ignored: true,
      });
    } catch (error) {
      if (isCode(error, 'invalid_request')) return badLink(reply, context, threadPath(context, cell.id, participant));
      throw error;
    }
    return sendPage(
      reply,
      form.status ?? 200,
      threadPage(context, {
        cell,
        participant,
        messages: page.messages,
        olderCursor: page.next_cursor,
        liveUrl: liveUrl(opened, cursor),
        form,
        ignored: await module.dashboard.ignoredOn(session.organizationId, cell.id, participant),
        notice,
      }),
    );
  }

  /**
   * Both send forms: check, send through MessagesService, 303 to the thread; or the page again
   * with the errors. `fixedTo`: the thread's participant for a reply (null: the address names none).
   */
  async function send(request: FastifyRequest, reply: FastifyReply, fixedTo?: string | null) {
    const session = await guard.posted(request, reply, textOf(request.body, 'csrf_token'));
    if (!session) return reply;
    const context = contextOf(session, 'cells');
    const opened = await openCell(session, (request.params as CellParams).cell_id);
    if (!opened) return cellNotFound(reply, context);
    const { cell } = opened;
    if (fixedTo === null) return conversationNotFound(reply, context, cell);
    const again = (form: SendForm) =>
      fixedTo ? showThread(reply, session, opened, fixedTo, form) : showCell(reply, session, opened, form);
    const { to, body, form } = readSendForm(request.body, fixedTo);
    if (hasError(form)) return again(form);
    let sent: MessageView;
    try {
      sent = await sendOnce(session, cell.id, { to, body }, sendIdOf(request.body));
    } catch (error) {
      if (isCode(error, 'not_found')) return cellNotFound(reply, context);
      const refused = refusedForm(error, { to, body }, fixedTo === undefined);
      if (refused) return again(refused);
      throw error;
    }
    return redirect(reply, `${threadPath(context, cell.id, sent.to)}#message-${sent.id}`);
  }

  /**
   * Sends through the send operation (src/operations); with the form's send_id, under that key (as the API's
   * Idempotency-Key): a second submit of the same form answers the first's message, or its
   * refusal, and sends nothing.
   */
  async function sendOnce(
    session: ConsoleSession,
    cellId: string,
    input: { to: string; body: string },
    sendId: string | undefined,
  ): Promise<MessageView> {
    const outcome = await dashboard.invoker.invoke<MessageView>(
      dashboard.messaging.operations.sendMessage,
      consolePrincipal(session),
      { cell_id: cellId, ...input },
      sendId ? { idempotencyKey: sendId, idempotency: { route: CONSOLE_SEND } } : {},
    );
    if (!outcome.replayed) return outcome.value;
    const body = JSON.parse(outcome.body) as MessageView & { code: ErrorCode; message: string };
    if (outcome.status >= 400) throw new ApiError(body.code, body.message);
    return body;
  }

  /** The thread's participant from its address (E.164, however it was written), or null. */
  const participantParam = (request: FastifyRequest) => normalizePhone((request.params as ThreadParams).participant);
  /** The cell and the participant a conversation's address names; null once a 404 page is sent. */
  async function openThread(request: FastifyRequest, reply: FastifyReply, session: ConsoleSession) {
    const context = contextOf(session, 'cells');
    const opened = await openCell(session, (request.params as ThreadParams).cell_id);
    if (!opened) {
      await cellNotFound(reply, context);
      return null;
    }
    const participant = participantParam(request);
    if (!participant) {
      await conversationNotFound(reply, context, opened.cell);
      return null;
    }
    return { opened, participant };
  }

  app.register(async (scope) => {
    registerFormParser(scope);

    scope.get(`${CONSOLE_PATH}/cells.js`, { config: PUBLIC, schema: HIDDEN }, async (_request, reply) =>
      reply
        .header('cache-control', 'public, max-age=3600')
        .header('x-content-type-options', 'nosniff')
        .type('text/javascript; charset=utf-8')
        .send(SCRIPT),
    );

    scope.get(`${CONSOLE_PATH}/cells`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
      const session = await guard.page(request, reply);
      if (!session) return reply;
      const context = contextOf(session, 'cells');
      const cursor = textOf(request.query, 'cursor') || undefined;
      try {
        // The outbox's end first: the list's live stream replays whatever changes after it.
        const after = await events.latestSeq();
        const page = await cells.list(session.organizationId, undefined, { limit: PAGE, cursor });
        // Only the first page is live: a new cell belongs at its top.
        const liveUrl = cursor ? null : `${CONSOLE_PATH}/cells/live?after=${after}`;
        const notice =
          textOf(request.query, 'notice') === 'released' ? 'Cell released: its number is no longer yours.' : undefined;
        return sendPage(
          reply,
          200,
          cellsPage(context, { cells: page.cells, nextCursor: page.next_cursor, liveUrl, notice }),
        );
      } catch (error) {
        if (isCode(error, 'invalid_request')) return badLink(reply, context, `${context.path}/cells`);
        throw error;
      }
    });

    scope.get(`${CONSOLE_PATH}/cells/:cell_id`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
      const session = await guard.page(request, reply);
      if (!session) return reply;
      const opened = await openCell(session, (request.params as CellParams).cell_id);
      if (!opened) return cellNotFound(reply, contextOf(session, 'cells'));
      return showCell(reply, session, opened, typedOf(request.query), textOf(request.query, 'cursor') || undefined);
    });

    scope.get(
      `${CONSOLE_PATH}/cells/:cell_id/conversations/:participant`,
      { config: PUBLIC, schema: HIDDEN },
      async (request, reply) => {
        const session = await guard.page(request, reply);
        if (!session) return reply;
        const thread = await openThread(request, reply, session);
        if (!thread) return reply;
        const { opened, participant } = thread;
        return showThread(
          reply,
          session,
          opened,
          participant,
          typedOf(request.query),
          textOf(request.query, 'cursor') || undefined,
          THREAD_NOTICES[textOf(request.query, 'notice')],
        );
      },
    );

    // Ignoring the other party on this cell, or no longer: the API's ignore list of the cell.
    for (const action of ['ignore', 'unignore'] as const) {
      scope.post(
        `${CONSOLE_PATH}/cells/:cell_id/conversations/:participant/${action}`,
        { config: PUBLIC, schema: HIDDEN },
        async (request, reply) => {
          const session = await guard.posted(request, reply, textOf(request.body, 'csrf_token'));
          if (!session) return reply;
          const thread = await openThread(request, reply, session);
          if (!thread) return reply;
          const { opened, participant } = thread;
          const context = contextOf(session, 'cells');
          const ops = module.dashboard.pods.ignore.cell;
          await actAsConsole(module.dashboard.invoker, session, action === 'ignore' ? ops.add : ops.remove, {
            cell_id: opened.cell.id,
            participant,
          });
          return redirect(reply, `${threadPath(context, opened.cell.id, participant)}?notice=${action}d#ignore`);
        },
      );
    }

    scope.post(
      `${CONSOLE_PATH}/cells/:cell_id/messages`,
      { config: PUBLIC, schema: HIDDEN, bodyLimit: SEND_BODY_LIMIT },
      (request, reply) => send(request, reply),
    );

    scope.post(
      `${CONSOLE_PATH}/cells/:cell_id/conversations/:participant/messages`,
      { config: PUBLIC, schema: HIDDEN, bodyLimit: SEND_BODY_LIMIT },
      (request, reply) => send(request, reply, participantParam(request)),
    );

    // An EventSource cannot follow a sign-in redirect: without a session the answer is a plain 401.
    const plain = plainAnswer;

    scope.get(`${CONSOLE_PATH}/cells/live`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
      const session = await guard.session(request);
      if (!session) return plain(reply, 401, 'Sign in to the console first.');
      const after = afterOf(request);
      if (after === 'invalid') return plain(reply, 400, 'after must be an event position from the page.');
      await live.open(request, reply, {
        organizationId: session.organizationId,
        cellId: null,
        after,
        render: listRender(contextOf(session, 'cells')),
      });
      return reply;
    });

    scope.get(`${CONSOLE_PATH}/cells/:cell_id/live`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
      const session = await guard.session(request);
      if (!session) return plain(reply, 401, 'Sign in to the console first.');
      const opened = await openCell(session, (request.params as CellParams).cell_id);
      if (!opened) return plain(reply, 404, 'No such cell.');
      const after = afterOf(request);
      if (after === 'invalid') return plain(reply, 400, 'after must be an event position from the page.');
      await live.open(request, reply, {
        organizationId: session.organizationId,
        cellId: opened.cell.id,
        after,
        render: liveRender(contextOf(session, 'cells')),
      });
      return reply;
    });
  });
}
