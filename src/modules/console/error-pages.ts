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

interface ErrorWords {
  title: string;
  message: string;
}

function wordsFor(error: ApiError, requestId: string, retryAfter: string | undefined): ErrorWords {
  if (error.status === 404)
    return { title: 'Page not found', message: 'There is no page at this address. Check the link, or start again.' };
  if (error.status === 429) {
    const seconds = Number(retryAfter);
    const wait =
      seconds > 90 ? `about ${Math.ceil(seconds / 60)} minutes` : `${Number.isFinite(seconds) ? seconds : 60} seconds`;
    return { title: 'Too many attempts', message: `${error.message} Try again in ${wait}.` };
  }
  if (error.status >= 500)
    return {
      title: 'Something went wrong',
      message: `The console could not finish this request; nothing you typed is lost by trying again in a moment. If it keeps failing, tell the operator request id ${requestId}.`,
    };
  return { title: 'Request refused', message: error.message };
}

function render(reply: FastifyReply, error: ApiError, page: (words: ErrorWords) => Html): FastifyReply {
  const retryAfter = reply.getHeader('retry-after');
  return sendPage(reply, error.status, page(wordsFor(error, reply.request.id, retryAfter?.toString())));
}

export function registerConsoleErrorPages(app: FastifyInstance): void {
  const home = { href: `${CONSOLE_PATH}/cells`, text: 'Go to the console' };
  setProblemPage(app, CONSOLE_PATH, (_request, reply, error) =>
    render(reply, error, (words) => messagePage(contextOf(null), words.title, words.message, home)),
  );
  const fleet = { href: `${OPERATOR_PATH}/fleet`, text: 'Go to the operator console' };
  setProblemPage(app, OPERATOR_PATH, (_request, reply, error) =>
    render(reply, error, (words) => operatorMessagePage(null, words.title, words.message, fleet)),
  );
}
