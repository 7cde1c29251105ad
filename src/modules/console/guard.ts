// How the organization console finds its session: a page without one redirects to sign-in and
// back; a post must come from the console's origin with the session's CSRF token.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CONSOLE_PATH, fromOwnOrigin, readSessionCookie, sendPage, type ConsoleHttp } from './http.ts';
import type { ConsoleSection, PageContext } from './layout.ts';
import { messagePage } from './pages.ts';
import { csrfMatches, type ConsoleService, type ConsoleSession } from './service.ts';

export type SignedInContext = PageContext & { signedIn: NonNullable<PageContext['signedIn']> };

export function contextOf(session: ConsoleSession, current?: ConsoleSection): SignedInContext;
export function contextOf(session: ConsoleSession | null, current?: ConsoleSection): PageContext;
export function contextOf(session: ConsoleSession | null, current?: ConsoleSection): PageContext {
  return { path: CONSOLE_PATH, current, signedIn: session ?? undefined };
}

export const redirect = (reply: FastifyReply, location: string) =>
  reply.code(303).header('cache-control', 'no-store').header('location', location).send();

/** A form post from another site's page (its Origin): refused before anything else is read. */
export const foreignPost = (reply: FastifyReply) =>
  sendPage(reply, 403, messagePage(contextOf(null), 'Request refused', 'This form was sent from another site.'));

export const signInUrl = (next: string) => `${CONSOLE_PATH}/sign-in?next=${encodeURIComponent(next)}`;

/** The organization console's sessions (the binder's SessionGuard). */
export function consoleGuard(service: ConsoleService, http: ConsoleHttp) {
  const session = (request: FastifyRequest) => service.session(readSessionCookie(request));
  /** Answers with a page instead of the route, and gives no session. */
  const refuse = async (reply: FastifyReply, status: number, ...page: Parameters<typeof messagePage>) => {
    await sendPage(reply, status, messagePage(...page));
    return null;
  };
  return {
    /** The session of the request's cookie, if it is valid. */
    session,
    /** The session of a page; without one, answers 303 to sign-in (coming back to the page) and gives null. */
    async page(request: FastifyRequest, reply: FastifyReply): Promise<ConsoleSession | null> {
      const found = await session(request);
      if (!found) await redirect(reply, signInUrl(request.url));
      return found;
    },
    /** The session of a form post; otherwise answers 403 (foreign origin or CSRF) or 401 (signed out) and gives null. */
    async posted(request: FastifyRequest, reply: FastifyReply, csrfToken: string): Promise<ConsoleSession | null> {
      if (!fromOwnOrigin(request, http)) {
        await foreignPost(reply);
        return null;
      }
      const found = await session(request);
      if (!found)
        return refuse(reply, 401, contextOf(null), 'Signed out', 'Your session has ended. Sign in again to continue.', {
          href: `${CONSOLE_PATH}/sign-in`,
          text: 'Sign in',
        });
      if (!csrfMatches(found, csrfToken))
        return refuse(
          reply,
          403,
          contextOf(found),
          'Request refused',
          'The form is out of date or was not sent from this console. Reload the page and try again.',
          { href: `${CONSOLE_PATH}/cells`, text: 'Back to the console' },
        );
      return found;
    },
  };
}
