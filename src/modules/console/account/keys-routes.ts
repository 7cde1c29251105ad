// /console/keys: list, create and revoke API keys through the OrganizationsService behind
// /v1/auth/keys. A new key is shown once: the post answers 303 with it in a flash cookie that the
// list page reads and clears (no-store), so neither a reload nor the back button creates or
// shows it again.
import type { Html } from '../../../lib/html.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../../http/types.ts';
import { ApiError } from '../../../lib/errors.ts';
import { contextOf, redirect } from '../guard.ts';
import { CONSOLE_PATH, flashCookie, readCookie, sendPage } from '../http.ts';
import type { ConsoleModule } from '../module.ts';
import { actAsConsole } from '../act.ts';
import { organizationOperations } from '../../organizations/operations.ts';
import type { ConsoleSession } from '../service.ts';
import { KEY_NAME_MAX, keysPage, revokeKeyPage } from './keys-pages.ts';
import { HIDDEN, noticeOf, orPage, param, PUBLIC, text, withNotice } from './shared.ts';

const NOTICES = { revoked: 'Key revoked. Requests with it are refused from now on.' };
const BACK = { href: `${CONSOLE_PATH}/keys`, text: 'Back to API keys' };
const KEYS_PATH = `${CONSOLE_PATH}/keys`;
const NEW_KEY_COOKIE = 'cg_console_new_key';

type NewKey = { organizationId: string; name: string; secret: string };

/** The new key the flash cookie carries, if it is this organization's. */
function newKeyOf(request: FastifyRequest, organizationId: string): { name: string; secret: string } | undefined {
  const value = readCookie(request, NEW_KEY_COOKIE);
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Partial<NewKey>;
    if (
      parsed.organizationId !== organizationId ||
      typeof parsed.name !== 'string' ||
      typeof parsed.secret !== 'string'
    )
      return undefined;
    return { name: parsed.name, secret: parsed.secret };
  } catch {
    return undefined;
  }
}

export function registerKeyPages(scope: App, module: ConsoleModule): void {
  const { guard, http } = module;
  const { organizations, invoker } = module.dashboard;
  const { createApiKey, revokeApiKey } = organizationOperations(organizations);

  async function sendKeys(
    reply: FastifyReply,
    session: ConsoleSession,
    status: number,
    options: {
      cursor?: string;
      notice?: Html;
      form?: { name?: string; error?: string };
      created?: { name: string; secret: string };
    },
  ) {
    const context = contextOf(session, 'keys');
    const page = await orPage(reply, context, BACK, 'page', () =>
      organizations.listKeys(session.organizationId, { limit: 50, cursor: options.cursor }),
    );
    if (!page) return reply;
    return sendPage(
      reply,
      status,
      keysPage(context, page.keys, {
        nextCursor: page.next_cursor,
        notice: options.notice,
        form: options.form ?? {},
        created: options.created,
      }),
    );
  }

  scope.get(`${CONSOLE_PATH}/keys`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
    const session = await guard.page(request, reply);
    if (!session) return reply;
    const created = newKeyOf(request, session.organizationId);
    if (readCookie(request, NEW_KEY_COOKIE) !== undefined)
      reply.header('set-cookie', flashCookie(http, NEW_KEY_COOKIE, KEYS_PATH, null));
    return sendKeys(reply, session, 200, {
      cursor: text(request.query, 'cursor') || undefined,
      notice: noticeOf(request.query, NOTICES),
      created,
    });
  });

  scope.post(`${CONSOLE_PATH}/keys`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
    const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
    if (!session) return reply;
    const name = text(request.body, 'name').trim();
    // The API takes keys without a name; the console asks for one, so a list of keys says where each is used.
    const error =
      name === ''
        ? 'Enter a name for the key.'
        : name.length > KEY_NAME_MAX
          ? `The name is too long (at most ${KEY_NAME_MAX} characters).`
          : undefined;
    if (error) return sendKeys(reply, session, 400, { form: { name, error } });
    let created: { api_key: string };
    try {
      created = await actAsConsole(invoker, session, createApiKey, { name });
    } catch (failure) {
      // The cap on active keys: a form error naming it, the form kept.
      if (failure instanceof ApiError && failure.code === 'conflict')
        return sendKeys(reply, session, 409, { form: { name, error: failure.message } });
      throw failure;
    }
    const flash: NewKey = { organizationId: session.organizationId, name, secret: created.api_key };
    reply.header(
      'set-cookie',
      flashCookie(http, NEW_KEY_COOKIE, KEYS_PATH, Buffer.from(JSON.stringify(flash)).toString('base64url')),
    );
    return redirect(reply, KEYS_PATH);
  });

  scope.get(`${CONSOLE_PATH}/keys/:key_id/revoke`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
    const session = await guard.page(request, reply);
    if (!session) return reply;
    const context = contextOf(session, 'keys');
    const key = await orPage(reply, context, BACK, 'API key', () =>
      organizations.activeKey(session.organizationId, param(request.params, 'key_id')),
    );
    if (!key) return reply;
    return sendPage(reply, 200, revokeKeyPage(context, key));
  });

  scope.post(`${CONSOLE_PATH}/keys/:key_id/revoke`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
    const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
    if (!session) return reply;
    const revoked = await orPage(reply, contextOf(session, 'keys'), BACK, 'API key', async () => {
      await actAsConsole(invoker, session, revokeApiKey, { key_id: param(request.params, 'key_id') });
      return true;
    });
    if (!revoked) return reply;
    return redirect(reply, withNotice(`${CONSOLE_PATH}/keys`, 'revoked'));
  });
}
