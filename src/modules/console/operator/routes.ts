// The operator console's sign-in, fleet and device pages:
//   GET  /console/operator                      → the fleet
//   GET  /console/operator/sign-in              the form (admin token)
//   POST /console/operator/sign-in              checks the token, sets cg_operator
//   POST /console/operator/sign-out
//   GET  /console/operator/fleet[?filter=offline]
//   GET  /console/operator/fleet/live           Server-Sent Events of the fleet's rows
//   GET  /console/operator/fleet.js             the live view's script
//   GET  /console/operator/devices/:device_id   telemetry, failures, actions
//   POST /console/operator/devices/:device_id/rotate-key
import { readFileSync } from 'node:fs';
import type { App } from '../../../http/types.ts';

import { HIDDEN, noticeOf, PUBLIC, text } from '../account/shared.ts';
import { fromOwnOrigin, registerFormParser, sendPage, setFlash, takeFlash, type ConsoleHttp } from '../http.ts';
import { FLEET_FILTERS, type FleetFilter } from './fleet.ts';
import { devicePage, fleetPage, fleetRow, fleetSummary, type DevicePageOptions } from './fleet-pages.ts';
import {
  OPERATOR_PATH,
  ADMIN_ID,
  badRequest,
  idOf,
  devicePath,
  foreignForm,
  operatorCookie,
  safeOperatorNext,
  type OperatorAsk,
} from './http.ts';
import { redirect } from '../guard.ts';
import { FleetLive } from './live.ts';
import { operatorBinder, type OperatorConsole } from './module.ts';
import { FormRefusal } from '../binder.ts';
import { operatorSignInPage } from './sign-in-page.ts';
import { asset } from '../routes.ts';
import { plainAnswer } from '../conversations/live.ts';
import { auditPage } from './audit-page.ts';

const SCRIPT = readFileSync(new URL('fleet.js', import.meta.url), 'utf8');
const PAGE = { config: PUBLIC, schema: HIDDEN };

/** The operator operation of each hold action. */
const HOLD_OPERATIONS = { pause: 'pauseDevice', resume: 'resumeDevice', release: 'releaseDevice' } as const;
/** What a phone's page (after an action) and the fleet (after a phone left it) say. */
const NOTICES: Record<string, string> = {
  pause: 'Paused: the phone claims nothing until resumed.',
  resume: 'Resumed: the phone claims messages again.',
  release: 'Released: the phone is healthy again.',
  settings: 'Saved: the phone claims at its new rate from its next claim.',
  sims: 'Saved: a SIM line with its number can carry a cell; a cell waiting for a phone takes it at once.',
  removed: 'Removed: the phone left the inventory.',
  enrollment_revoked: 'Revoked: its token and code no longer work.',
};

/** The longest reason an operator action keeps (as the admin API's). */
const REASON_MAX = 500;
/** What is wrong with an action's reason (kept with it in the audit log), if anything. */
export const reasonError = (reason: string, required = true) =>
  reason === '' && required
    ? 'Enter a reason: it is kept with the action.'
    : reason.length > REASON_MAX
      ? `The reason is at most ${REASON_MAX} characters.`
      : undefined;

const DEVICE_KEY_COOKIE = 'cg_operator_device_key';
/** A device key shown once on its phone's page: a rotated key, or a new phone's (`added`). */
type FlashedKey = { deviceId: string; adminTokenId: string; secret: string; added?: boolean };

/** Post/Redirect/Get for a key shown once: it rides a flash cookie to its phone's page, where to go next. */
export function flashDeviceKey(
  http: ConsoleHttp,
  { reply, session }: OperatorAsk,
  key: Omit<FlashedKey, 'adminTokenId'>,
) {
  setFlash(reply, http, DEVICE_KEY_COOKIE, devicePath(key.deviceId), { ...key, adminTokenId: session.adminTokenId });
  return devicePath(key.deviceId);
}

export function registerOperatorRoutes(app: App, operator: OperatorConsole): void {
  const { guard, sessions, fleet, http } = operator;
  const live = new FleetLive({
    rows: () => fleet.fleet(),
    render: fleetRow,
    stillSignedIn: async (request) => (await guard.session(request)) !== null,
    log: app.log,
  });
  operator.live = live;
  app.addHook('preClose', async () => live.closeAll());
  app.addHook('onRequest', guard.crossingHook());

  app.register(async (scope) => {
    registerFormParser(scope);

    scope.get(OPERATOR_PATH, PAGE, async (_request, reply) => redirect(reply, `${OPERATOR_PATH}/fleet`));
    scope.get(`${OPERATOR_PATH}/fleet.js`, PAGE, asset('text/javascript', SCRIPT));

    scope.get(`${OPERATOR_PATH}/sign-in`, PAGE, async (request, reply) => {
      const next = safeOperatorNext(text(request.query, 'next'));
      if (await guard.session(request)) return redirect(reply, next ?? `${OPERATOR_PATH}/fleet`);
      return sendPage(reply, 200, operatorSignInPage({ next }));
    });

    scope.post(
      `${OPERATOR_PATH}/sign-in`,
      { config: { ...PUBLIC, ipLimit: 'sign_in' }, schema: HIDDEN },
      async (request, reply) => {
        const next = safeOperatorNext(text(request.body, 'next'));
        if (!fromOwnOrigin(request, http)) return sendPage(reply, 403, foreignForm());
        const token = text(request.body, 'admin_token').trim();
        const signedIn = token === '' ? null : await sessions.signIn(token);
        if (!signedIn) {
          const error =
            token === ''
              ? 'Enter an admin token (cg_adm_…).'
              : 'That admin token is not valid: it is unknown, revoked or not an admin token.';
          return sendPage(reply, 400, operatorSignInPage({ next, error }));
        }
        reply.header('set-cookie', operatorCookie(http, signedIn.token));
        return redirect(reply, next ?? `${OPERATOR_PATH}/fleet`);
      },
    );
  });
}

const FLEET_BACK = { href: `${OPERATOR_PATH}/fleet`, text: 'Back to the fleet' };
/** The route's phone id; one the admin surface would not take is no phone. */
export const phoneId = (ask: OperatorAsk) => idOf(ask, 'device_id');
/** The phones' section: the fleet its way back, an unknown phone its 404. */
export const PHONE_SECTION = { back: FLEET_BACK, missing: 'phone', gone: 'No phone with this id is in the inventory.' };

/** The phone's page of the route's device_id (with a form's state); an id of the wrong form is no phone. */
export async function phonePage(operator: OperatorConsole, ask: OperatorAsk, options: DevicePageOptions) {
  const id = phoneId(ask);
  const row = await operator.fleet.device(id);
  const [telemetry, failures] = await Promise.all([operator.fleet.telemetry(id), operator.fleet.recentFailures(id)]);
  return devicePage(ask.session, row, { telemetry, failures, ...options });
}

/** The fleet, the audit log, each phone's page and actions, sign-out: the operator's signed-in scope. */
export function registerFleetPages(scope: App, operator: OperatorConsole): void {
  const { fleet, http, sessions } = operator;
  const bind = operatorBinder(scope, operator, PHONE_SECTION);

  bind.post(`${OPERATOR_PATH}/sign-out`, {
    run: async ({ session, reply }) => {
      await sessions.signOut(session);
      reply.header('set-cookie', operatorCookie(http, null));
      return `${OPERATOR_PATH}/sign-in`;
    },
  });

  bind.view(`${OPERATOR_PATH}/fleet`, async (ask) => {
    const { session, query } = ask;
    const asked = query.filter || 'all';
    if (!FLEET_FILTERS.includes(asked as FleetFilter))
      return badRequest(
        ask,
        { href: `${OPERATOR_PATH}/fleet`, text: 'See every phone' },
        'Unknown filter',
        `The fleet can be filtered by: ${FLEET_FILTERS.join(', ')}.`,
      );
    const filter = asked as FleetFilter;
    const all = await fleet.fleet();
    const rows = filter === 'all' ? all : await fleet.fleet(filter);
    return fleetPage(session, rows, {
      filter,
      // Only the unfiltered table is live: a filtered one would have rows leave and join it.
      liveUrl: filter === 'all' ? `${OPERATOR_PATH}/fleet/live` : null,
      notice: noticeOf(query, NOTICES),
      summary: fleetSummary(all),
    });
  });

  bind.view(`${OPERATOR_PATH}/fleet/live`, async ({ request, reply }) => {
    const live = operator.live;
    if (!live) throw new Error('the fleet live view is created with the operator routes');
    if (live.full)
      return plainAnswer(reply.header('retry-after', '30'), 429, 'Too many live views are open; try again later.');
    await live.open(request, reply);
    return reply;
  });

  bind.view(`${OPERATOR_PATH}/audit`, async (ask) => {
    const targetId = (ask.query.target_id ?? '').trim();
    if (targetId !== '' && !ADMIN_ID.test(targetId))
      return badRequest(ask, { href: `${OPERATOR_PATH}/audit`, text: 'See every action' });
    const page = await operator.audit.list({
      limit: 50,
      cursor: ask.query.cursor || undefined,
      target_id: targetId || undefined,
    });
    return auditPage(ask.session, page.entries, { targetId: targetId || null, nextCursor: page.next_cursor });
  });

  bind.view(`${OPERATOR_PATH}/devices/:device_id`, async (ask) => {
    const id = phoneId(ask);
    const flashed = takeFlash<FlashedKey>(
      ask,
      http,
      DEVICE_KEY_COOKIE,
      devicePath(id),
      (key) =>
        key.deviceId === id &&
        key.adminTokenId === ask.session.adminTokenId &&
        typeof key.secret === 'string' &&
        key.secret.startsWith('cg_dev_'),
    );
    return phonePage(operator, ask, {
      rotatedKey: flashed?.secret,
      keyIsNew: flashed?.added === true,
      notice: noticeOf(ask.query, NOTICES),
    });
  });

  /** A phone's action form: its reason (required for a hold), then `run`. */
  const devicePost = (action: string, run: (ask: OperatorAsk, id: string, reason: string) => Promise<string>) =>
    bind.post(`${OPERATOR_PATH}/devices/:device_id/${action}`, {
      run: async (ask) => {
        const id = phoneId(ask);
        const reason = (ask.body.reason ?? '').trim();
        const error = reasonError(reason, action !== 'rotate-key');
        if (error) throw new FormRefusal({ reason: error });
        return run(ask, id, reason);
      },
      page: (ask, refusal) => phonePage(operator, ask, { sent: { ...refusal, form: action } }),
    });

  for (const [action, op] of Object.entries(HOLD_OPERATIONS))
    devicePost(action, async ({ call }, id, reason) => {
      await call(operator.operations.devices[op], { device_id: id, reason });
      return `${devicePath(id)}?notice=${action}`;
    });

  devicePost('rotate-key', async (ask, id, reason) => {
    const { device_key: secret } = await ask.call(operator.operations.devices.rotateDeviceKey, {
      device_id: id,
      ...(reason ? { reason } : {}),
    });
    return flashDeviceKey(http, ask, { deviceId: id, secret });
  });
}
