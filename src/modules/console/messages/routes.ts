// The Messages section: search the organization's texts, and export a search as CSV.
//   GET /console/messages              the search form and a page of matches (cursor-paginated)
//   GET /console/messages/export.csv   every match as CSV, streamed page by page from the database
// Both read through MessagesService.search over the organization's own cells (as the cells
// service lists them), so a released or another organization's cell is never searched; a cell
// named in the address that is not the organization's is a 404, like an unknown one.
import { Readable } from 'node:stream';
import { ApiError } from '../../../lib/errors.ts';
import type { App } from '../../../http/types.ts';
import type { CellView, CellsService } from '../../cells/service.ts';
import type { MessageView } from '../../messages/views.ts';
import type { MessageSearchQuery } from '../../messages/service.ts';
import { consoleBinder, type Answer, type Ask } from '../binder.ts';
import { CONSOLE_PATH } from '../http.ts';
import type { ConsoleModule } from '../module.ts';
import { cellNotFoundPage } from '../pages.ts';
import { csvLine } from './csv.ts';
import { searchPage } from './pages.ts';
import { hasErrors, readSearch, type SearchForm } from './search-form.ts';

const PAGE = 50;
/** A checked search: the organization's cells, the form, and the query of the cells it searches. */
type Search = { organizationCells: CellView[]; form: SearchForm; query: Omit<MessageSearchQuery, 'cursor'> };
/** Rows read from the database per step of an export: the most it ever holds at once. */
const EXPORT_PAGE = 500;
/** The export's first line: each column is the message's field of that name, but cell_name and error_code. */
const CSV_HEADER =
  'id,created_at,cell_id,cell_name,direction,from,to,status,body,code,segments,error_code,sent_at,delivered_at,received_at';

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
  csvLine(
    CSV_HEADER.split(',').map((column) => {
      if (column === 'cell_name') return cellNames.get(message.cell_id) ?? '';
      if (column === 'error_code') return message.error?.code;
      return message[column as keyof MessageView] as string | number | null | undefined;
    }),
  );

export function registerMessageSearchPages(scope: App, module: ConsoleModule): void {
  const { cells } = module.dashboard;
  const { messages } = module.dashboard.messaging;
  const back = { href: `${CONSOLE_PATH}/messages`, text: 'Search all your cells' };
  const bind = consoleBinder(scope, module, {
    section: 'messages',
    back,
    missing: 'cell',
    notFound: (context) => cellNotFoundPage(context, back),
  });

  /**
   * A page of the search: the organization's cells and the checked form; a cell that is not the
   * organization's is the 404, a form with errors the search page again (400), nothing searched.
   */
  const bindSearch = (path: string, answer: (ask: Ask, search: Search) => Promise<Answer>) =>
    bind.view(path, async (ask) => {
      const organizationCells = await allCells(cells, ask.session.organizationId);
      const cellIds = organizationCells.map((cell) => cell.id);
      const { form, search, cell, foreignCell } = readSearch(ask.query, new Set(cellIds));
      if (foreignCell) throw new ApiError('not_found', 'No such cell.');
      if (hasErrors(form))
        return ask.send(400, searchPage(ask.context, { form, cells: organizationCells, results: null }));
      return answer(ask, { organizationCells, form, query: { ...search, cellIds: cell ? [cell] : cellIds } });
    });

  bindSearch(`${CONSOLE_PATH}/messages`, async (ask, { organizationCells, form, query }) => {
    const cursor = ask.query.cursor || undefined;
    const page = await messages.search(ask.session.organizationId, { ...query, cursor, limit: PAGE });
    return searchPage(ask.context, {
      form,
      cells: organizationCells,
      results: { messages: page.messages, nextCursor: page.next_cursor, cursor },
    });
  });

  bindSearch(`${CONSOLE_PATH}/messages/export.csv`, async (ask, { organizationCells, query }) => {
    const cellNames = new Map(organizationCells.map((cell) => [cell.id, cell.display_name]));
    const day = module.clock.now().toISOString().slice(0, 10);
    // The header, then each page of matches as the database gives it.
    async function* lines() {
      yield `${CSV_HEADER}\r\n`;
      for await (const page of messages.searchPages(ask.session.organizationId, query, EXPORT_PAGE))
        yield page.map((message) => csvRow(message, cellNames)).join('');
    }
    return ask.reply
      .code(200)
      .headers({
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="cellgate-messages-${day}.csv"`,
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      })
      .send(Readable.from(lines()));
  });
}
