// The console's pages (HTML, not part of the API document): sign-in with an emailed code, the
// consent page of an authorization request, the organization's grants, sign-out.
import { readdirSync, readFileSync } from 'node:fs';
import type { FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../../http/types.ts';
import type { Clock } from '../../lib/clock.ts';
import { ApiError } from '../../lib/errors.ts';
import type { OAuthService } from '../oauth/service.ts';
import { consentOperations } from '../oauth/operations.ts';
import type { Invoker } from '../../operations/invoke.ts';
import { actAsConsole } from './act.ts';
import { ConsoleGuard, contextOf, redirect } from './guard.ts';
import {
  CONSOLE_PATH,
  SESSION_CONSENT_PATH,
  clearedCookies,
  fromOwnOrigin,
  registerFormParser,
  safeNext,
  sendPage,
  sessionCookies,
  type ConsoleHttp,
} from './http.ts';
import { codePage, consentPage, grantsPage, messagePage, signInPage } from './pages.ts';
import { SESSION_TTL_MS, type ConsoleService } from './service.ts';

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
const PUBLIC = { auth: 'public' as const };
const HIDDEN = { hide: true };

export interface ConsoleRouteDeps {
  console: ConsoleService;
  oauth: OAuthService;
  clock: Clock;
  http: ConsoleHttp;
  /** The grants' revoke goes through the API's operation. */
  dashboard: { invoker: Invoker };
  /** Whether sign-in codes are mailed or kept in the dev outbox (the code page says which). */
  mailed: boolean;
}

type Fields = Record<string, unknown>;
const text = (fields: unknown, name: string): string => {
  const value = (fields as Fields | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};

export function registerConsoleRoutes(app: App, deps: ConsoleRouteDeps): void {
  const { console: service, oauth, clock, http } = deps;
  const { revokeOAuthGrant } = consentOperations(oauth);
  const guard = new ConsoleGuard(service, http);
  const sessionOf = (request: FastifyRequest) => guard.session(request);

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
        if (!fromOwnOrigin(request, http))
          return sendPage(
            reply,
            403,
            messagePage(contextOf(null), 'Request refused', 'This form was sent from another site.'),
          );
        if (email.length > 254 || !EMAIL.test(email)) {
          return sendPage(
            reply,
            400,
            signInPage(contextOf(null), { email, next, error: 'Enter an email address, like name@example.com.' }),
          );
        }
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
        if (!fromOwnOrigin(request, http))
          return sendPage(
            reply,
            403,
            messagePage(contextOf(null), 'Request refused', 'This form was sent from another site.'),
          );
        if (email.length > 254 || !EMAIL.test(email))
          return sendPage(
            reply,
            400,
            signInPage(contextOf(null), { email, next, error: 'Enter an email address, like name@example.com.' }),
          );
        if (!/^\d{6}$/.test(code))
          return sendPage(
            reply,
            400,
            codePage(contextOf(null), {
              email,
              next,
              mailed: deps.mailed,
              error: 'Enter the 6 digits from the email.',
            }),
          );
        const signedIn = await service.signIn(email, code);
        if (!signedIn) {
          return sendPage(
            reply,
            400,
            codePage(contextOf(null), {
              email,
              next,
              mailed: deps.mailed,
              error: 'That code is not valid. A code works for 10 minutes and 5 tries; send a new one if needed.',
            }),
          );
        }
        reply.header('set-cookie', sessionCookies(http, signedIn.token, SESSION_TTL_MS / 1000));
        // A sign-in that finished a sign-up's verification lands where the sign-up would have.
        return redirect(reply, next ?? `${CONSOLE_PATH}/cells${signedIn.confirmed ? '/new?welcome=1' : ''}`);
      },
    );

    scope.post(`${CONSOLE_PATH}/sign-out`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
      if (!(await sessionOf(request)))
        return reply
          .header('set-cookie', clearedCookies(http))
          .code(303)
          .header('location', `${CONSOLE_PATH}/sign-in`)
          .send();
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      await service.signOut(session);
      reply.header('set-cookie', clearedCookies(http));
      return redirect(reply, `${CONSOLE_PATH}/sign-in`);
    });

    scope.get(`${CONSOLE_PATH}/consent`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
      const requestId = text(request.query, 'request');
      const session = await guard.page(request, reply);
      if (!session) return reply;
      const context = contextOf(session);
      if (!/^[A-Za-z0-9_]{1,64}$/.test(requestId))
        return sendPage(
          reply,
          400,
          messagePage(
            context,
            'No authorization request',
            'The link has no valid authorization request. Return to the application and start again.',
          ),
        );
      let described: Awaited<ReturnType<OAuthService['describeRequest']>>;
      try {
        described = await oauth.describeRequest(session.organizationId, requestId);
      } catch (error) {
        if (error instanceof ApiError && error.code === 'not_found') {
          return sendPage(
            reply,
            404,
            messagePage(
              context,
              'Authorization request not found',
              'This authorization request does not exist or belongs to another organization. Return to the application and start again.',
            ),
          );
        }
        throw error;
      }
      if (described.status !== 'pending') {
        return sendPage(
          reply,
          409,
          messagePage(
            context,
            'Already decided',
            `This authorization request was already ${described.status}. Return to the application and start again if needed.`,
            { href: `${CONSOLE_PATH}/grants`, text: 'See connected applications' },
          ),
        );
      }
      if (described.expires_at <= clock.now().toISOString()) {
        return sendPage(
          reply,
          409,
          messagePage(
            context,
            'Authorization request expired',
            'This authorization request expired. Return to the application and start again.',
          ),
        );
      }
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

    scope.get(`${CONSOLE_PATH}/grants`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
      const session = await guard.page(request, reply);
      if (!session) return reply;
      const context = contextOf(session, 'grants');
      const cursor = text(request.query, 'cursor') || undefined;
      try {
        const page = await oauth.listGrants(session.organizationId, { limit: 50, cursor });
        return sendPage(
          reply,
          200,
          grantsPage(context, page.grants, {
            nextCursor: page.next_cursor,
            revoked: text(request.query, 'revoked') === '1',
          }),
        );
      } catch (error) {
        if (error instanceof ApiError && error.code === 'invalid_request')
          return sendPage(
            reply,
            400,
            messagePage(context, 'Page not found', 'This list link is not valid.', {
              href: `${CONSOLE_PATH}/grants`,
              text: 'See connected applications',
            }),
          );
        throw error;
      }
    });

    scope.post(
      `${CONSOLE_PATH}/grants/:grant_id/revoke`,
      { config: PUBLIC, schema: HIDDEN },
      async (request, reply) => {
        const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
        if (!session) return reply;
        const grantId = (request.params as { grant_id: string }).grant_id;
        try {
          await actAsConsole(deps.dashboard.invoker, session, revokeOAuthGrant, { grant_id: grantId });
        } catch (error) {
          if (error instanceof ApiError && error.code === 'not_found') {
            return sendPage(
              reply,
              404,
              messagePage(
                contextOf(session),
                'Grant not found',
                'This application no longer has access, or the grant belongs to another organization.',
                { href: `${CONSOLE_PATH}/grants`, text: 'See connected applications' },
              ),
            );
          }
          throw error;
        }
        return redirect(reply, `${CONSOLE_PATH}/grants?revoked=1`);
      },
    );
  });
}
