// What a browser gets when a console request fails outside a page's own handling (an unknown
// address, a rate limit, an internal error): a page in the console's look that says what happened
// and what to do, never the API's problem+json. The operator console's pages in its own shell.
import type { Html } from '../../lib/html.ts';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { setProblemPage } from '../../http/errors.ts';
import type { ApiError } from '../../lib/errors.ts';
import { contextOf } from './guard.ts';
import { CONSOLE_PATH, sendPage } from './http.ts';
import { operatorMessagePage } from './operator/layout.ts';
import { OPERATOR_PATH } from './operator/http.ts';
import { messagePage } from './pages.ts';

/** The error's page: its title and message in words, drawn by `page`. */
function render(reply: FastifyReply, error: ApiError, page: (title: string, message: string) => Html): FastifyReply {
  const send = (title: string, message: string) => sendPage(reply, error.status, page(title, message));
  if (error.status === 404)
    return send('Page not found', 'There is no page at this address. Check the link, or start again.');
  if (error.status === 429) {
    const seconds = Number(reply.getHeader('retry-after')?.toString());
    const wait =
      seconds > 90 ? `about ${Math.ceil(seconds / 60)} minutes` : `${Number.isFinite(seconds) ? seconds : 60} seconds`;
    return send('Too many attempts', `${error.message} Try again in ${wait}.`);
  }
  if (error.status >= 500)
    return send(
      'Something went wrong',
      `The console could not finish this request; nothing you typed is lost by trying again in a moment. If it keeps failing, tell the operator request id ${reply.request.id}.`,
    );
  return send('Request refused', error.message);
}

export function registerConsoleErrorPages(app: FastifyInstance): void {
  const home = { href: `${CONSOLE_PATH}/cells`, text: 'Go to the console' };
  setProblemPage(app, CONSOLE_PATH, (_request, reply, error) =>
    render(reply, error, (title, message) => messagePage(contextOf(null), title, message, home)),
  );
  const fleet = { href: `${OPERATOR_PATH}/fleet`, text: 'Go to the operator console' };
  setProblemPage(app, OPERATOR_PATH, (_request, reply, error) =>
    render(reply, error, (title, message) => operatorMessagePage(null, title, message, fleet)),
  );
}
