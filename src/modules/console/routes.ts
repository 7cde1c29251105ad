// The console's pages (HTML, not part of the API document): sign-in with an emailed code, the
// consent page of an authorization request, the organization's grants, sign-out.
import { readdirSync, readFileSync } from 'node:fs';
import type { FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../../http/types.ts';
import { consentOperations } from '../oauth/operations.ts';
import { HIDDEN, PUBLIC, text } from './account/shared.ts';
import { consoleBinder } from './binder.ts';
import { contextOf, foreignPost, redirect } from './guard.ts';
import {
  CONSOLE_PATH,
  SESSION_CONSENT_PATH,
  clearedCookies,
  fromOwnOrigin,
  registerFormParser,
  safeNext,
  sendPage,
  sessionCookies,
} from './http.ts';
import type { ConsoleModule } from './module.ts';
import { codePage, consentPage, grantsPage, messagePage, signInPage } from './pages.ts';
import { SESSION_TTL_MS } from './service.ts';

// One stylesheet: console.css, then each section's own (in its folder), read once at start.
const CONSOLE_DIR = new URL('.', import.meta.url);
const STYLESHEET = [
  'console.css',
  ...readdirSync(CONSOLE_DIR, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.css') && file !== 'console.css')
    .sort(),
]
  .map((file) => readFileSync(new URL(file, CONSOLE_DIR), 'utf8'))
  .join('\n');
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;

/** Sign-in and the stylesheet: the console's public routes. */
export function registerConsoleRoutes(app: App, deps: ConsoleModule): void {
  const { console: service, http, guard } = deps;
  const sessionOf = guard.session.bind(guard);
  const emailLooksRight = (email: string) => email.length <= 254 && EMAIL.test(email);
  const badEmail = (reply: FastifyReply, email: string, next: string | undefined) =>
    sendPage(
      reply,
      400,
      signInPage(contextOf(null), { email, next, error: 'Enter an email address, like name@example.com.' }),
    );

  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    registerFormParser(scope);

    scope.get(CONSOLE_PATH, { config: PUBLIC, schema: HIDDEN }, async (_request, reply) =>
      redirect(reply, `${CONSOLE_PATH}/cells`),
    );

    scope.get(`${CONSOLE_PATH}/console.css`, { config: PUBLIC, schema: HIDDEN }, async (_request, reply) =>
      reply
        .header('cache-control', 'public, max-age=3600')
        .header('x-content-type-options', 'nosniff')
        .type('text/css; charset=utf-8')
        .send(STYLESHEET),
    );

    scope.get(`${CONSOLE_PATH}/sign-in`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
      const next = safeNext(text(request.query, 'next'));
      if (await sessionOf(request)) return redirect(reply, next ?? `${CONSOLE_PATH}/cells`);
      return sendPage(reply, 200, signInPage(contextOf(null), { next }));
    });

    scope.post(
      `${CONSOLE_PATH}/sign-in`,
      { config: { ...PUBLIC, ipLimit: 'sign_in' }, schema: HIDDEN },
      async (request, reply) => {
        const email = text(request.body, 'email').trim();
        const next = safeNext(text(request.body, 'next'));
        if (!fromOwnOrigin(request, http)) return foreignPost(reply);
        if (!emailLooksRight(email)) return badEmail(reply, email, next);
        await service.requestCode(email);
        return sendPage(reply, 200, codePage(contextOf(null), { email, next, mailed: deps.mailed }));
      },
    );

    scope.post(
      `${CONSOLE_PATH}/sign-in/code`,
      { config: { ...PUBLIC, ipLimit: 'sign_in' }, schema: HIDDEN },
      async (request, reply) => {
        const email = text(request.body, 'email').trim();
        const code = text(request.body, 'code').replace(/\s/g, '');
        const next = safeNext(text(request.body, 'next'));
        if (!fromOwnOrigin(request, http)) return foreignPost(reply);
        if (!emailLooksRight(email)) return badEmail(reply, email, next);
        const codeAgain = (error: string) =>
          sendPage(reply, 400, codePage(contextOf(null), { email, next, mailed: deps.mailed, error }));
        if (!/^\d{6}$/.test(code)) return codeAgain('Enter the 6 digits from the email.');
        const signedIn = await service.signIn(email, code);
        if (!signedIn)
          return codeAgain(
            'That code is not valid. A code works for 10 minutes and 5 tries; send a new one if needed.',
          );
        reply.header('set-cookie', sessionCookies(http, signedIn.token, SESSION_TTL_MS / 1000));
        // A sign-in that finished a sign-up's verification lands where the sign-up would have.
        return redirect(reply, next ?? `${CONSOLE_PATH}/cells${signedIn.confirmed ? '/new?welcome=1' : ''}`);
      },
    );
  });
}

/** The consent page of an authorization request, the organization's grants and sign-out (the signed-in scope). */
export function registerConsentPages(scope: App, module: ConsoleModule): void {
  const { oauth, clock, http } = module;
  const { revokeOAuthGrant } = consentOperations(oauth);
  const back = { href: `${CONSOLE_PATH}/grants`, text: 'See connected applications' };
  const grants = consoleBinder(scope, module, {
    section: 'grants',
    back,
    missing: 'grant',
    notFound: (context) =>
      messagePage(
        context,
        'Grant not found',
        'This application no longer has access, or the grant belongs to another organization.',
        back,
      ),
  });
  const consent = consoleBinder(scope, module, {
    back,
    missing: 'authorization request',
    notFound: (context) =>
      messagePage(
        context,
        'Authorization request not found',
        'This authorization request does not exist or belongs to another organization. Return to the application and start again.',
      ),
  });

  consent.view(`${CONSOLE_PATH}/consent`, async ({ session, context, query, reply, send }) => {
    const requestId = query.request ?? '';
    if (!/^[A-Za-z0-9_]{1,64}$/.test(requestId))
      return send(
        400,
        messagePage(
          context,
          'No authorization request',
          'The link has no valid authorization request. Return to the application and start again.',
        ),
      );
    const described = await oauth.describeRequest(session.organizationId, requestId);
    if (described.status !== 'pending')
      return send(
        409,
        messagePage(
          context,
          'Already decided',
          `This authorization request was already ${described.status}. Return to the application and start again if needed.`,
          back,
        ),
      );
    if (described.expires_at <= clock.now().toISOString())
      return send(
        409,
        messagePage(
          context,
          'Authorization request expired',
          'This authorization request expired. Return to the application and start again.',
        ),
      );
    const resourceName =
      described.resource === oauth.resources.mcp ? 'the Cellgate MCP endpoint' : 'the Cellgate REST API';
    return sendPage(
      reply,
      200,
      consentPage(
        context,
        {
          id: described.id,
          clientId: described.client_id,
          clientName: described.client_name,
          redirectHost: described.redirect_host,
          redirectUri: described.redirect_uri,
          scopes: described.scopes,
          resource: described.resource,
          resourceName,
          expiresAt: described.expires_at,
        },
        SESSION_CONSENT_PATH,
      ),
      { formsAnywhere: true },
    );
  });

  grants.view(`${CONSOLE_PATH}/grants`, async ({ session, context, query }) => {
    const page = await oauth.listGrants(session.organizationId, { limit: 50, cursor: query.cursor || undefined });
    return grantsPage(context, page.grants, { nextCursor: page.next_cursor, revoked: query.revoked === '1' });
  });

  grants.post(`${CONSOLE_PATH}/sign-out`, {
    run: async ({ session, reply }) => {
      await module.console.signOut(session);
      reply.header('set-cookie', clearedCookies(http));
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
