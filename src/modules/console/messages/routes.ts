// The Messages section: search the organization's texts, and export a search as CSV.
//   GET /console/messages              the search form and a page of matches (cursor-paginated)
//   GET /console/messages/export.csv   every match as CSV, streamed page by page from the database
// Both read through MessagesService.search over the organization's own cells (as the cells
// service lists them), so a released or another organization's cell is never searched; a cell
// named in the address that is not the organization's is a 404, like an unknown one.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { App } from '../../../http/types.ts';
import { ApiError } from '../../../lib/errors.ts';
import type { CellView, CellsService } from '../../cells/service.ts';
import type { MessageView } from '../../messages/views.ts';
import type { MessagesService, MessageSearchQuery } from '../../messages/service.ts';
import { HIDDEN, PUBLIC, text } from '../account/shared.ts';
import { contextOf, type SignedInContext } from '../guard.ts';
import { CONSOLE_PATH, sendPage } from '../http.ts';
import type { ConsoleModule } from '../module.ts';
import { cellNotFoundPage, messagePage } from '../pages.ts';
import { csvLine } from './csv.ts';
import { searchPage } from './pages.ts';
import { hasErrors, readSearch } from './search-form.ts';

const PAGE = 50;
/** Rows read from the database per step of an export: the most it ever holds at once. */
export const EXPORT_PAGE = 500;
const CSV_HEADER = [
  'id',
  'created_at',
  'cell_id',
  'cell_name',
  'direction',
  'from',
  'to',
  'status',
  'body',
  'code',
  'segments',
  'error_code',
  'sent_at',
  'delivered_at',
  'received_at',
];

/** Every cell of the organization (released ones are not listed), newest first. */
export async function allCells(cells: CellsService, organizationId: string): Promise<CellView[]> {
  const all: CellView[] = [];
  let cursor: string | undefined;
  do {
    const page = await cells.list(organizationId, undefined, { limit: 200, cursor });
    all.push(...page.cells);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return all;
}

const csvRow = (message: MessageView, cellNames: ReadonlyMap<string, string>) =>
  csvLine([
    message.id,
    message.created_at,
    message.cell_id,
    cellNames.get(message.cell_id) ?? '',
    message.direction,
    message.from,
    message.to,
    message.status,
    message.body,
    message.code ?? null,
    message.segments,
    message.error?.code ?? null,
    message.sent_at,
    message.delivered_at,
    message.received_at,
  ]);

/** The export's lines: the header, then each page of matches as the database gives it. */
async function* csvLines(
  messages: MessagesService,
  organizationId: string,
  query: Omit<MessageSearchQuery, 'cursor'>,
  cellNames: ReadonlyMap<string, string>,
): AsyncGenerator<string> {
  yield csvLine(CSV_HEADER);
  for await (const page of messages.searchPages(organizationId, query, EXPORT_PAGE))
    yield page.map((message) => csvRow(message, cellNames)).join('');
}

export function registerMessageSearchPages(app: App, module: ConsoleModule): void {
  const { guard, dashboard } = module;
  const { cells } = dashboard;
  const { messages } = dashboard.messaging;

  const cellNotFound = (reply: FastifyReply, context: SignedInContext) =>
    sendPage(
      reply,
      404,
      cellNotFoundPage(context, { href: `${CONSOLE_PATH}/messages`, text: 'Search all your cells' }),
    );

  /** The session, its cells and the checked form; or null once the reply is answered. */
  async function prepared(
    request: { query: unknown; url: string },
    reply: FastifyReply,
    session: NonNullable<Awaited<ReturnType<typeof guard.session>>>,
  ) {
    const context = contextOf(session, 'messages');
    const organizationCells = await allCells(cells, session.organizationId);
    const read = readSearch(request.query, new Set(organizationCells.map((cell) => cell.id)));
    if (read.foreignCell) {
      await cellNotFound(reply, context);
      return null;
    }
    const query = { ...read.search, cellIds: read.cell ? [read.cell] : organizationCells.map((cell) => cell.id) };
    return { context, organizationCells, form: read.form, query };
  }

  app.get(`${CONSOLE_PATH}/messages`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
    const session = await guard.page(request, reply);
    if (!session) return reply;
    const ready = await prepared(request, reply, session);
    if (!ready) return reply;
    const { context, organizationCells, form, query } = ready;
    if (hasErrors(form))
      return sendPage(reply, 400, searchPage(context, { form, cells: organizationCells, results: null }));
    const cursor = text(request.query, 'cursor') || undefined;
    try {
      const page = await messages.search(session.organizationId, { ...query, cursor, limit: PAGE });
      return sendPage(
        reply,
        200,
        searchPage(context, {
          form,
          cells: organizationCells,
          results: { messages: page.messages, nextCursor: page.next_cursor, cursor },
        }),
      );
    } catch (error) {
      if (error instanceof ApiError && error.errors?.some((e) => e.field === 'cursor'))
        return sendPage(
          reply,
          400,
          messagePage(context, 'Page not found', 'This list link is not valid.', {
            href: `${CONSOLE_PATH}/messages`,
            text: 'Start a new search',
          }),
        );
      throw error;
    }
  });

  app.get(`${CONSOLE_PATH}/messages/export.csv`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
    const session = await guard.page(request, reply);
    if (!session) return reply;
    const ready = await prepared(request, reply, session);
    if (!ready) return reply;
    const { context, organizationCells, form, query } = ready;
    if (hasErrors(form))
      return sendPage(reply, 400, searchPage(context, { form, cells: organizationCells, results: null }));
    const cellNames = new Map(organizationCells.map((cell) => [cell.id, cell.display_name]));
    const day = module.clock.now().toISOString().slice(0, 10);
    return reply
      .code(200)
      .headers({
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="cellgate-messages-${day}.csv"`,
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      })
      .send(Readable.from(csvLines(messages, session.organizationId, query, cellNames)));
  });
}
