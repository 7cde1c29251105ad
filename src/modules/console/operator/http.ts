// How the operator console's routes find their session: its own cookie (cg_operator, on
// /console/operator only, SameSite=Strict), the console's same-origin check and CSRF token on
// every form post. Sessions never cross: a request that carries only an organization's console
// session gets 404 here, and one that carries only an operator session gets 404 on the
// organization's pages (see crossingHook), so neither console even admits that the other exists.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Html } from '../../../lib/html.ts';
import { CONSOLE_PATH, cookie, fromOwnOrigin, readCookie, safeNext, sendPage, type ConsoleHttp } from '../http.ts';
import type { Ask } from '../binder.ts';
import { OPERATOR_SESSION_TTL_MS, type OperatorSession, type OperatorSessions } from './service.ts';
import { csrfMatches } from '../service.ts';
import { notFoundPage, operatorMessagePage } from './layout.ts';
import { redirect } from '../guard.ts';
import { ApiError } from '../../../lib/errors.ts';

export const OPERATOR_PATH = `${CONSOLE_PATH}/operator`;
export const OPERATOR_COOKIE = 'cg_operator';

/** What an operator page's binding gets. */
export type OperatorAsk = Ask<OperatorSession, OperatorSession>;

export const devicePath = (id: string) => `${OPERATOR_PATH}/devices/${encodeURIComponent(id)}`;

/** The session cookie (SameSite=Strict, on the operator's pages only); a null token clears it. */
export const operatorCookie = (http: ConsoleHttp, token: string | null) =>
  cookie(http, OPERATOR_COOKIE, OPERATOR_PATH, token, OPERATOR_SESSION_TTL_MS / 1000);

/** 400: a list link whose cursor or filter the console did not write (a hand-edited URL), or as said. */
export const badRequest = (
  { send, session }: OperatorAsk,
  back: { href: string; text: string },
  title = 'Page not found',
  message = 'This list link is not valid.',
) => send(400, operatorMessagePage(session, title, message, back));

/** An id as the admin surface takes it (a phone's, an organization's, a deposit's). */
export const ADMIN_ID = /^[A-Za-z0-9_]{1,64}$/;

/** The route's id `name`; one of another form (a hand-edited address) names no such thing: the section's 404. */
export function idOf({ params }: OperatorAsk, name: string, form = ADMIN_ID): string {
  if (!form.test(params[name])) throw new ApiError('not_found', 'Nothing has this id.');
  return params[name];
}

/** The answer to a form sent from another site. */
export const foreignForm = () => operatorMessagePage(null, 'Request refused', 'This form was sent from another site.');

/** `next` after sign-in: an operator page of this origin only (never an open redirect). */
export function safeOperatorNext(next: string): string | undefined {
  const safe = next.startsWith(`${OPERATOR_PATH}/`) ? safeNext(next) : undefined;
  return safe?.startsWith(`${OPERATOR_PATH}/`) ? safe : undefined;
}

const SIGNED_OUT = 'Your operator session has ended. Sign in again to continue.';
const STALE_FORM = 'The form is out of date or was not sent from this console. Reload the page and try again.';

export class OperatorGuard {
  private readonly deps: {
    sessions: OperatorSessions;
    http: ConsoleHttp;
    /** Whether the request carries a live organization console session. */
    organizationSession: (request: FastifyRequest) => Promise<boolean>;
  };

  constructor(deps: OperatorGuard['deps']) {
    this.deps = deps;
  }

  session(request: FastifyRequest): Promise<OperatorSession | null> {
    return this.deps.sessions.session(readCookie(request, OPERATOR_COOKIE));
  }

  /** 404 (the organization console's page) for a request with an organization's session; else false. */
  private async organizationAsks(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    if (!(await this.deps.organizationSession(request))) return false;
    await sendPage(reply, 404, notFoundPage());
    return true;
  }

  /** The session of a page; without one, 404 for an organization's session, else 303 to sign-in; null then. */
  async page(request: FastifyRequest, reply: FastifyReply): Promise<OperatorSession | null> {
    const session = await this.session(request);
    if (session) return session;
    if (!(await this.organizationAsks(request, reply)))
      await redirect(reply, `${OPERATOR_PATH}/sign-in?next=${encodeURIComponent(request.url)}`);
    return null;
  }

  /** The session of a form post; otherwise 403 (foreign origin, CSRF), 404 (an organization's session) or 401. */
  async posted(request: FastifyRequest, reply: FastifyReply, csrfToken: string): Promise<OperatorSession | null> {
    const refuse = async (status: number, page: Html) => {
      await sendPage(reply, status, page);
      return null;
    };
    if (!fromOwnOrigin(request, this.deps.http)) return refuse(403, foreignForm());
    const session = await this.session(request);
    if (!session) {
      if (await this.organizationAsks(request, reply)) return null;
      const signIn = { href: `${OPERATOR_PATH}/sign-in`, text: 'Sign in' };
      return refuse(401, operatorMessagePage(null, 'Signed out', SIGNED_OUT, signIn));
    }
    if (csrfMatches(session, csrfToken)) return session;
    const back = { href: `${OPERATOR_PATH}/fleet`, text: 'Back to the fleet' };
    return refuse(403, operatorMessagePage(session, 'Request refused', STALE_FORM, back));
  }

  /**
   * The other direction, as a root onRequest hook: an organization's console page asked with an
   * operator session and no organization session is 404. Assets (the shared stylesheet) pass.
   */
  crossingHook() {
    /** Whether the page is refused (an operator's session, no organization's). */
    const crossing = async (request: FastifyRequest, path: string) => {
      if (path === OPERATOR_PATH || path.startsWith(`${OPERATOR_PATH}/`) || /\.(css|js)$/.test(path)) return false;
      if (readCookie(request, OPERATOR_COOKIE) === undefined) return false;
      return Boolean(await this.session(request)) && !(await this.deps.organizationSession(request));
    };
    // Every request passes here: the API's leave at once, without a promise.
    return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
      if (!request.url.startsWith(CONSOLE_PATH)) return done();
      const path = request.url.split('?')[0];
      if (!path.startsWith(`${CONSOLE_PATH}/`) && path !== CONSOLE_PATH) return done();
      // A callback hook that answers early sends and does not call done.
      crossing(request, path).then((refused) => (refused ? void sendPage(reply, 404, notFoundPage()) : done()), done);
    };
  }
}
