// /console/keys: list, create and revoke API keys through the OrganizationsService behind
// /v1/auth/keys. A new key is shown once: the post answers 303 with it in a flash cookie that the
// list page reads and clears (no-store), so neither a reload nor the back button creates or
// shows it again.
import type { App } from '../../../http/types.ts';
import { consoleBinder, FormRefusal, type Ask } from '../binder.ts';
import { setFlash, takeFlash } from '../http.ts';
import type { ConsoleModule } from '../module.ts';
import { organizationOperations } from '../../organizations/operations.ts';
import { KEY_NAME_MAX, KEYS_PATH, keysPage, revokeKeyPage } from './keys-pages.ts';
import { noticeOf, withNotice } from './shared.ts';

const NOTICES = { revoked: 'Key revoked. Requests with it are refused from now on.' };
const NEW_KEY_COOKIE = 'cg_console_new_key';

type NewKey = { organizationId: string; name: string; secret: string };
/** The flash of a key this organization created (a forged or foreign one shows nothing). */
const ownKey = (organizationId: string) => (key: Partial<NewKey>) =>
  key.organizationId === organizationId && typeof key.name === 'string' && typeof key.secret === 'string';

export function registerKeyPages(scope: App, module: ConsoleModule): void {
  const { http } = module;
  const { organizations } = module.dashboard;
  const { createApiKey, revokeApiKey } = organizationOperations(organizations);
  const bind = consoleBinder(scope, module, {
    section: 'keys',
    back: { href: KEYS_PATH, text: 'Back to API keys' },
    missing: 'API key',
  });

  async function keysOf({ session, context, query }: Ask, options: Parameters<typeof keysPage>[2]) {
    const page = await organizations.listKeys(session.organizationId, { limit: 50, cursor: query.cursor || undefined });
    return keysPage(context, page, options);
  }

  bind.view(KEYS_PATH, (ask) => {
    const created = takeFlash(ask, http, NEW_KEY_COOKIE, KEYS_PATH, ownKey(ask.session.organizationId));
    return keysOf(ask, { notice: noticeOf(ask.query, NOTICES), created });
  });

  const nameOf = (ask: Ask) => (ask.body.name ?? '').trim();
  bind.form(KEYS_PATH, createApiKey, {
    input: (ask) => {
      const name = nameOf(ask);
      // The API takes keys without a name; the console asks for one, so a list of keys says where each is used.
      if (name === '') throw new FormRefusal({ name: 'Enter a name for the key.' });
      if (name.length > KEY_NAME_MAX)
        throw new FormRefusal({ name: `The name is too long (at most ${KEY_NAME_MAX} characters).` });
      return { name };
    },
    // The cap on active keys (409) too: a form error naming it, the form kept.
    page: (ask, refusal) => keysOf(ask, { form: { name: nameOf(ask), error: refusal.errors.name ?? refusal.notice } }),
    done: (ask, created) => {
      const flash: NewKey = { organizationId: ask.session.organizationId, name: nameOf(ask), secret: created.api_key };
      setFlash(ask.reply, http, NEW_KEY_COOKIE, KEYS_PATH, flash);
      return KEYS_PATH;
    },
  });

  bind.view(`${KEYS_PATH}/:key_id/revoke`, async ({ session, context, params }) =>
    revokeKeyPage(context, await organizations.activeKey(session.organizationId, params.key_id)),
  );

  bind.post(`${KEYS_PATH}/:key_id/revoke`, {
    run: async ({ call, params }) => {
      await call(revokeApiKey, { key_id: params.key_id });
      return withNotice(KEYS_PATH, 'revoked');
    },
  });
}
