// POST /v1/oauth/consent/session: the console's consent form (or a script of the console) decides
// an authorization request with the console session cookie, guarded by the session's CSRF token.
// Not a bearer route: `auth: 'public'` for the conventions, and the cookie is checked here.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ApiError } from '../../lib/errors.ts';
import { Body, Described, NoContent } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { ConsentResult, consentOperations } from '../oauth/operations.ts';
import { actAsConsole } from './act.ts';
import { CONSOLE_PATH, SESSION_CONSENT_PATH, fromOwnOrigin, isFormPost, registerFormParser, sendPage } from './http.ts';
import { messagePage } from './pages.ts';
import { csrfMatches } from './service.ts';
import type { ConsoleModule } from './module.ts';
import { redirect, signInUrl } from './guard.ts';

const REQUEST_ID = 'oar_01jdx5a1b2c3d4e5f6g7h8j9k0';

// The shape of POST /v1/oauth/consent's answer, under its own name in the API document.
const { description, examples } = ConsentResult as { description?: string; examples?: unknown[] };
const SessionConsentResult = Type.Object(ConsentResult.properties, {
  $id: 'OAuthConsoleConsentResult',
  description,
  examples,
});

/** A form's approve arrives as text. */
const formValue = (name: string, value: string): unknown =>
  name === 'approve' && (value === 'true' || value === 'false') ? value === 'true' : value;

export function registerSessionConsentRoute(app: App, deps: ConsoleModule): void {
  const { oauth, http } = deps;
  const { decideAuthorizationRequest } = consentOperations(oauth);
  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    registerFormParser(scope, formValue);
    scope.post(
      SESSION_CONSENT_PATH,
      {
        config: { auth: 'public', errors: ['unauthenticated', 'forbidden', 'not_found', 'conflict'] },
        schema: {
          operationId: 'decideAuthorizationRequestWithConsoleSession',
          tags: ['OAuth'],
          summary: 'Approve or deny an authorization request from the console',
          description:
            "The console's consent form posts here. Authenticated by the console session cookie (`cg_console`, set by the console's sign-in; 401 `unauthenticated` without a live one), not by a bearer credential, and guarded by the session's CSRF token (403 `forbidden` when `csrf_token` is missing or wrong, or the post comes from another origin). Decides once (409 `conflict` when already decided or expired); another organization's request is 404. A JSON body is answered 200 with the redirect URL; a form (application/x-www-form-urlencoded, `approve` as `true` or `false`) is answered 303 to it.",
          consumes: ['application/json', 'application/x-www-form-urlencoded'],
          body: Body(
            {
              request_id: Type.String({
                minLength: 1,
                maxLength: 64,
                description: 'The request parameter of the consent URL.',
              }),
              approve: Type.Boolean(),
              csrf_token: Type.Optional(
                Type.String({
                  maxLength: 64,
                  description: 'The CSRF token of the console session (in every console form).',
                }),
              ),
            },
            { examples: [{ request_id: REQUEST_ID, approve: true, csrf_token: 'Zq3kV8mT1xR5nB7cW2yH4jL6pD9sF0gA' }] },
          ),
          response: {
            200: Described(SessionConsentResult, 'The decision is recorded; send the user to redirect_url.'),
            303: NoContent(
              'From a form: the decision is recorded and Location is the redirect URL (code, state and iss, or error=access_denied).',
            ),
          },
        },
      },
      async (request, reply) => {
        const form = isFormPost(request);
        try {
          if (!fromOwnOrigin(request, http)) throw new ApiError('forbidden', 'The request comes from another origin.');
          const session = await deps.guard.session(request);
          if (!session) throw new ApiError('unauthenticated', 'No live console session: sign in to the console first.');
          if (!csrfMatches(session, request.body.csrf_token))
            throw new ApiError('forbidden', 'csrf_token is missing or does not match the console session.');
          const { redirect_url: location } = await actAsConsole<{ redirect_url: string }>(
            deps.dashboard.invoker,
            session,
            decideAuthorizationRequest,
            { request_id: request.body.request_id, approve: request.body.approve },
          );
          if (form) return redirect(reply, location);
          return reply.header('cache-control', 'no-store').send({ redirect_url: location });
        } catch (error) {
          // A browser that posted the form gets a page, with the same status.
          if (!form || !(error instanceof ApiError) || error.status >= 500) throw error;
          const consent = `${CONSOLE_PATH}/consent?request=${encodeURIComponent(request.body.request_id)}`;
          const pages: Record<number, [string, string, { href: string; text: string } | undefined]> = {
            401: [
              'Signed out',
              'Your console session has ended. Sign in again to decide this request.',
              { href: signInUrl(consent), text: 'Sign in' },
            ],
            403: [
              'Request refused',
              'The form is out of date or was not sent from this console. Open the request again and decide there.',
              { href: consent, text: 'Open the request again' },
            ],
            404: [
              'Authorization request not found',
              'This authorization request does not exist or belongs to another organization.',
              undefined,
            ],
            409: [
              'Already decided',
              `${error.message} Return to the application and start again if needed.`,
              { href: `${CONSOLE_PATH}/grants`, text: 'See connected applications' },
            ],
          };
          const [title, message, link] = pages[error.status] ?? ['Request refused', error.message, undefined];
          return sendPage(reply, error.status, messagePage({ path: CONSOLE_PATH }, title, message, link));
        }
      },
    );
  });
}
