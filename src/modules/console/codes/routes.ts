// The Codes page, live:
//   GET /console/codes        per cell of the organization, its latest verification codes
//   GET /console/codes/live   Server-Sent Events: each new code as its row
// Codes are read through CodesService (the API's GET /v1/cells/{id}/codes); the live stream is the
// console's own (conversations/live.ts), passing on the received messages that carry a code
// (an ignored sender's text has no event, so it never shows here, as the API leaves it out).
import type { App } from '../../../http/types.ts';
import type { MessageView } from '../../messages/views.ts';
import { HIDDEN, PUBLIC } from '../account/shared.ts';
import { afterOf, pageLive, plainAnswer } from '../conversations/live.ts';
import { contextOf } from '../guard.ts';
import { CONSOLE_PATH, sendPage } from '../http.ts';
import type { ConsoleModule } from '../module.ts';
import { allCells } from '../messages/routes.ts';
import { phone } from '../conversations/format.ts';
import { codesPage } from './pages.ts';

/** Codes shown per cell. */
const LATEST = 10;

export function registerCodesPages(app: App, module: ConsoleModule): void {
  const { guard, dashboard } = module;
  const { events } = dashboard.eventing;
  const live = pageLive(app, module);

  app.get(`${CONSOLE_PATH}/codes`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
    const session = await guard.page(request, reply);
    if (!session) return reply;
    // The outbox's end first: the live stream replays whatever arrives after it.
    const after = await events.latestSeq();
    const cells = await allCells(dashboard.cells, session.organizationId);
    const entries = await Promise.all(
      cells.map(async (cell) => ({
        cell,
        codes: (await dashboard.codes.list(session.organizationId, cell.id, { limit: LATEST })).codes,
      })),
    );
    return sendPage(
      reply,
      200,
      codesPage(contextOf(session, 'codes'), { cells: entries, liveUrl: `${CONSOLE_PATH}/codes/live?after=${after}` }),
    );
  });

  app.get(`${CONSOLE_PATH}/codes/live`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
    const session = await guard.session(request);
    if (!session) return plainAnswer(reply, 401, 'Sign in to the console first.');
    const after = afterOf(request);
    if (after === 'invalid') return plainAnswer(reply, 400, 'after must be an event position from the page.');
    await live.open(request, reply, {
      organizationId: session.organizationId,
      cellId: null,
      concerns: (envelope) => envelope.type === 'message.received' && Boolean((envelope.data as MessageView).code),
      after,
      // The frame says which cell has a new code; the script fetches the page's fresh tables
      // (a code's service is read with the code, not carried by the message event).
      render: (envelope) => {
        const message = envelope.data as MessageView;
        return {
          event: 'refresh',
          data: { cell_id: message.cell_id, announce: `New code from ${phone(message.from)}.` },
        };
      },
    });
    return reply;
  });
}
