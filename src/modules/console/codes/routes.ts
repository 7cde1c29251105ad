// The Codes page, live:
//   GET /console/codes        per cell of the organization, its latest verification codes
//   GET /console/codes/live   Server-Sent Events: which cell has a new code
// Codes are read through CodesService (the API's GET /v1/cells/{id}/codes); the live stream passes
// on the received messages that carry a code (an ignored sender's text has no event, so it never
// shows here, as the API leaves it out).
import type { App } from '../../../http/types.ts';
import type { MessageView } from '../../messages/views.ts';
import { consoleBinder } from '../binder.ts';
import { pageLive } from '../conversations/live.ts';
import { CONSOLE_PATH } from '../http.ts';
import type { ConsoleModule } from '../module.ts';
import { allCells } from '../messages/routes.ts';
import { phone } from '../conversations/format.ts';
import { codesPage } from './pages.ts';

/** Codes shown per cell. */
const LATEST = 10;

export function registerCodesPages(scope: App, module: ConsoleModule): void {
  const { dashboard } = module;
  const bind = consoleBinder(scope, module, {
    section: 'codes',
    back: { href: `${CONSOLE_PATH}/codes`, text: 'See your codes' },
    missing: 'cell',
  });

  bind.view(`${CONSOLE_PATH}/codes`, async ({ session, context }) => {
    // The outbox's end first: the live stream replays whatever arrives after it.
    const after = await dashboard.eventing.events.latestSeq();
    const cells = await allCells(dashboard.cells, session.organizationId);
    const entries = await Promise.all(
      cells.map(async (cell) => ({
        cell,
        codes: (await dashboard.codes.list(session.organizationId, cell.id, { limit: LATEST })).codes,
      })),
    );
    return codesPage(context, { cells: entries, liveUrl: `${CONSOLE_PATH}/codes/live?after=${after}` });
  });

  pageLive(scope, module).route(`${CONSOLE_PATH}/codes/live`, () => ({
    concerns: (envelope) => envelope.type === 'message.received' && Boolean((envelope.data as MessageView).code),
    // The frame says which cell has a new code; the script fetches the page's fresh tables
    // (a code's service is read with the code, not carried by the message event).
    render: ({ data }) => {
      const { cell_id, from } = data as MessageView;
      return { event: 'refresh', data: { cell_id, announce: `New code from ${phone(from)}.` } };
    },
  }));
}
