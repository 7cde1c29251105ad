// The console's pages (HTML, not part of the API document): sign-in with an emailed code, the
// consent page of an authorization request, the organization's grants, sign-out.
import { readdirSync, readFileSync } from 'node:fs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/types.ts';
import { consentOperations } from '../oauth/operations.ts';
import { HIDDEN, PUBLIC, text } from './account/shared.ts';
import { consoleBinder, signedOutScope } from './binder.ts';
import { contextOf, redirect, type SignedInContext } from './guard.ts';
import { CONSOLE_PATH, SESSION_CONSENT_PATH, safeNext, sendPage, sessionCookies } from './http.ts';
import { COPY_SCRIPT } from './layout.ts';
import type { ConsoleModule } from './module.ts';
import { codePage, consentPage, EMAIL_ERROR, grantsPage, looksLikeEmail, messagePage, signInPage } from './pages.ts';

const CONSOLE_DIR = new URL('.', import.meta.url);
// copy.js: the Copy button of a secret shown once, from the console's own origin (its CSP allows only 'self' scripts).
const COPY = readFileSync(new URL('copy.js', import.meta.url), 'utf8');
const PAGE = { config: PUBLIC, schema: HIDDEN };
/** A file every console page may load, read once at start. */
export const asset = (type: string, body: string) => async (_request: unknown, reply: FastifyReply) =>
  reply
    .header('cache-control', 'public, max-age=3600')
    .header('x-content-type-options', 'nosniff')
    .type(`${type}; charset=utf-8`)
    .send(body);
// One stylesheet: console.css, then each section's own (in its folder), read once at start.
const STYLESHEET = [
  'console.css',
  ...readdirSync(CONSOLE_DIR, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.css') && file !== 'console.css')
    .sort(),
]
  .map((file) => readFileSync(new URL(file, CONSOLE_DIR), 'utf8'))
  .join('\n');

/** Sign-in and the stylesheet: the console's public routes. */
export function registerConsoleRoutes(app: App, deps: ConsoleModule): void {
  const { console: service, http, guard, mailed } = deps;
  const signIn = { config: { ...PUBLIC, ipLimit: 'sign_in' as const }, schema: HIDDEN };
  const signedOut = contextOf(null);
  /** A sign-in post's fields, and the form again (400) when its email is not one. */
  const posted = ({ body }: FastifyRequest, reply: FastifyReply) => {
    const email = text(body, 'email').trim();
    const next = safeNext(text(body, 'next'));
    const refused =
      !looksLikeEmail(email) && sendPage(reply, 400, signInPage(signedOut, { email, next, error: EMAIL_ERROR }));
    return { email, next, refused };
  };

  signedOutScope(app, http, (scope) => {
    scope.get(CONSOLE_PATH, PAGE, async (_request, reply) => redirect(reply, `${CONSOLE_PATH}/cells`));
    scope.get(`${CONSOLE_PATH}/console.css`, PAGE, asset('text/css', STYLESHEET));
    scope.get(COPY_SCRIPT, PAGE, asset('text/javascript', COPY));

    scope.get(`${CONSOLE_PATH}/sign-in`, PAGE, async (request, reply) => {
      const next = safeNext(text(request.query, 'next'));
      if (await guard.session(request)) return redirect(reply, next ?? `${CONSOLE_PATH}/cells`);
      return sendPage(reply, 200, signInPage(signedOut, { next }));
    });

    scope.post(`${CONSOLE_PATH}/sign-in`, signIn, async (request, reply) => {
      const { email, next, refused } = posted(request, reply);
      if (refused) return refused;
      await service.requestCode(email);
      return sendPage(reply, 200, codePage(signedOut, { email, next, mailed }));
    });

    scope.post(`${CONSOLE_PATH}/sign-in/code`, signIn, async (request, reply) => {
      const { email, next, refused } = posted(request, reply);
      if (refused) return refused;
      const code = text(request.body, 'code').replace(/\s/g, '');
      const codeAgain = (error: string) => sendPage(reply, 400, codePage(signedOut, { email, next, mailed, error }));
      if (!/^\d{6}$/.test(code)) return codeAgain('Enter the 6 digits from the email.');
      const signedIn = await service.signIn(email, code);
      if (!signedIn)
        return codeAgain('That code is not valid. A code works for 10 minutes and 5 tries; send a new one if needed.');
      reply.header('set-cookie', sessionCookies(http, signedIn.token));
      // A sign-in that finished a sign-up's verification lands where the sign-up would have.
      return redirect(reply, next ?? `${CONSOLE_PATH}/cells${signedIn.confirmed ? '/new?welcome=1' : ''}`);
    });
  });
}

/** The consent page of an authorization request, the organization's grants and sign-out (the signed-in scope). */
export function registerConsentPages(scope: App, module: ConsoleModule): void {
  const { oauth, clock, http } = module;
  const { revokeOAuthGrant } = consentOperations(oauth);
  const back = { href: `${CONSOLE_PATH}/grants`, text: 'See connected applications' };
  const gone = (title: string, message: string, link?: typeof back) => (context: SignedInContext) =>
    messagePage(context, title, message, link);
  const grants = consoleBinder(scope, module, {
    section: 'grants',
    back,
    missing: 'grant',
    notFound: gone(
      'Grant not found',
      'This application no longer has access, or the grant belongs to another organization.',
      back,
    ),
  });
  const consent = consoleBinder(scope, module, {
    back,
    missing: 'authorization request',
    notFound: gone(
      'Authorization request not found',
      'This authorization request does not exist or belongs to another organization. Return to the application and start again.',
    ),
  });

  consent.view(`${CONSOLE_PATH}/consent`, async ({ session, context, query, reply, send }) => {
    const refuse = (status: number, title: string, message: string, link?: typeof back) =>
      send(status, messagePage(context, title, message, link));
    const again = 'Return to the application and start again';
    const requestId = query.request ?? '';
    if (!/^[A-Za-z0-9_]{1,64}$/.test(requestId))
      return refuse(400, 'No authorization request', `The link has no valid authorization request. ${again}.`);
    const described = await oauth.describeRequest(session.organizationId, requestId);
    if (described.status !== 'pending')
      return refuse(
        409,
        'Already decided',
        `This authorization request was already ${described.status}. ${again} if needed.`,
        back,
      );
    if (described.expires_at <= clock.now().toISOString())
      return refuse(409, 'Authorization request expired', `This authorization request expired. ${again}.`);
    const resourceName =
      described.resource === oauth.resources.mcp ? 'the Cellgate MCP endpoint' : 'the Cellgate REST API';
    return sendPage(reply, 200, consentPage(context, { ...described, resourceName }, SESSION_CONSENT_PATH), {
      formsAnywhere: true,
    });
  });

  grants.view(`${CONSOLE_PATH}/grants`, async ({ session, context, query }) => {
    const page = await oauth.listGrants(session.organizationId, { limit: 50, cursor: query.cursor || undefined });
    return grantsPage(context, page.grants, { nextCursor: page.next_cursor, revoked: query.revoked === '1' });
  });

  grants.post(`${CONSOLE_PATH}/sign-out`, {
    run: async ({ session, reply }) => {
      await module.console.signOut(session);
      reply.header('set-cookie', sessionCookies(http, null));
      return `${CONSOLE_PATH}/sign-in`;
    },
  });

  grants.post(`${CONSOLE_PATH}/grants/:grant_id/revoke`, {
    run: async ({ call, params }) => {
      await call(revokeOAuthGrant, { grant_id: params.grant_id });
      return `${CONSOLE_PATH}/grants?revoked=1`;
    },
  });
}
