// The Codes page, live:
//   GET /console/codes        per cell of the organization, its latest verification codes
//   GET /console/codes/live   Server-Sent Events: each new code as its row
// Codes are read through CodesService (the API's GET /v1/cells/{id}/codes); the live stream is the
// console's own (conversations/live.ts), passing on the received messages that carry a code
// (an ignored sender's text has no event, so it never shows here, as the API leaves it out).
import type { App } from '../../../http/types.ts';
import type { MessageView } from '../../messages/views.ts';
import { consoleBinder, sessionOf, STREAM_ROUTE } from '../binder.ts';
import { afterOf, pageLive, plainAnswer } from '../conversations/live.ts';
import { CONSOLE_PATH } from '../http.ts';
import type { ConsoleModule } from '../module.ts';
import { allCells } from '../messages/routes.ts';
import { phone } from '../conversations/format.ts';
import { codesPage } from './pages.ts';

/** Codes shown per cell. */
const LATEST = 10;

export function registerCodesPages(scope: App, module: ConsoleModule): void {
  const { dashboard } = module;
  const { events } = dashboard.eventing;
  const live = pageLive(scope, module);
  const bind = consoleBinder(scope, module, {
    section: 'codes',
    back: { href: `${CONSOLE_PATH}/codes`, text: 'See your codes' },
    missing: 'cell',
  });

  bind.view(`${CONSOLE_PATH}/codes`, async ({ session, context }) => {
    // The outbox's end first: the live stream replays whatever arrives after it.
    const after = await events.latestSeq();
    const cells = await allCells(dashboard.cells, session.organizationId);
    const entries = await Promise.all(
      cells.map(async (cell) => ({
        cell,
        codes: (await dashboard.codes.list(session.organizationId, cell.id, { limit: LATEST })).codes,
      })),
    );
    return codesPage(context, { cells: entries, liveUrl: `${CONSOLE_PATH}/codes/live?after=${after}` });
  });

  scope.get(`${CONSOLE_PATH}/codes/live`, STREAM_ROUTE, async (request, reply) => {
    const session = sessionOf(request);
    const after = afterOf(request);
    if (after === 'invalid') return plainAnswer(reply, 400, 'after must be an event position from the page.');
    await live.open(request, reply, {
      organizationId: session.organizationId,
      cellId: null,
      concerns: (envelope) => envelope.type === 'message.received' && Boolean((envelope.data as MessageView).code),
      after,
      // The frame says which cell has a new code; the script fetches the page's fresh tables
      // (a code's service is read with the code, not carried by the message event).
      render: ({ data }) => {
        const { cell_id, from } = data as MessageView;
        return { event: 'refresh', data: { cell_id, announce: `New code from ${phone(from)}.` } };
      },
    });
    return reply;
  });
}
