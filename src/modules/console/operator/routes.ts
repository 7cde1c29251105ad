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
import type { Html } from '../../../lib/html.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../../../http/types.ts';

import { ApiError } from '../../../lib/errors.ts';
import { noticeOf, param, text } from '../account/shared.ts';
import { flashCookie, fromOwnOrigin, readCookie, registerFormParser, sendPage, type ConsoleHttp } from '../http.ts';
import { FLEET_FILTERS, type FleetFilter } from './fleet.ts';
import { devicePage, fleetPage, fleetRow, fleetSummary, type DevicePageOptions } from './fleet-pages.ts';
import {
  OPERATOR_PATH,
  clearedOperatorCookie,
  devicePath,
  operatorCookie,
  redirect,
  safeOperatorNext,
} from './http.ts';
import { operatorMessagePage } from './layout.ts';
import { FleetLive } from './live.ts';
import { actAs, type OperatorConsole } from './module.ts';
import { OPERATOR_SESSION_TTL_MS, type OperatorSession } from './service.ts';
import { operatorSignInPage } from './sign-in-page.ts';
import { auditPage } from './audit-page.ts';

const SCRIPT = readFileSync(new URL('fleet.js', import.meta.url), 'utf8');
export const PUBLIC = { auth: 'public' as const };
export const HIDDEN = { hide: true };

const HOLD_ACTIONS = ['pause', 'resume', 'release'] as const;
/** The operator operation of each hold action. */
const HOLD_OPERATIONS = { pause: 'pauseDevice', resume: 'resumeDevice', release: 'releaseDevice' } as const;
const HOLD_NOTICES: Record<string, string> = {
  pause: 'Paused: the phone claims nothing until resumed.',
  resume: 'Resumed: the phone claims messages again.',
  release: 'Released: the phone is healthy again.',
  settings: 'Saved: the phone claims at its new rate from its next claim.',
};

const FLEET_NOTICES: Record<string, string> = {
  removed: 'Removed: the phone left the inventory.',
  enrollment_revoked: 'Revoked: its token and code no longer work.',
};

/** The longest reason an operator action keeps (as the admin API's). */
export const REASON_MAX = 500;
/** A device id as the admin surface takes it; anything else is no device. */
export const DEVICE_ID = /^[A-Za-z0-9_]{1,64}$/;

const DEVICE_KEY_COOKIE = 'cg_operator_device_key';
/** A device key shown once on its phone's page: a rotated key, or a new phone's (`added`). */
type FlashedKey = { deviceId: string; adminTokenId: string; secret: string; added?: boolean };

/**
 * Post/Redirect/Get for a key shown once: it rides a flash cookie, scoped to the phone's page, which
 * shows it and clears the cookie.
 */
export function flashDeviceKey(
  reply: FastifyReply,
  http: ConsoleHttp,
  session: OperatorSession,
  deviceId: string,
  secret: string,
  kind: 'rotated' | 'added',
): void {
  const flash: FlashedKey = { deviceId, adminTokenId: session.adminTokenId, secret, added: kind === 'added' };
  reply.header(
    'set-cookie',
    flashCookie(
      http,
      DEVICE_KEY_COOKIE,
      devicePath(deviceId),
      Buffer.from(JSON.stringify(flash)).toString('base64url'),
    ),
  );
}

/** The device key the flash cookie carries, if it is this phone's and this operator's. */
function flashedKeyOf(
  request: FastifyRequest,
  deviceId: string,
  session: OperatorSession,
): { secret: string; added: boolean } | undefined {
  const value = readCookie(request, DEVICE_KEY_COOKIE);
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Partial<FlashedKey>;
    return parsed.deviceId === deviceId &&
      parsed.adminTokenId === session.adminTokenId &&
      typeof parsed.secret === 'string' &&
      parsed.secret.startsWith('cg_dev_')
      ? { secret: parsed.secret, added: parsed.added === true }
      : undefined;
  } catch {
    return undefined;
  }
}

export function deviceNotFound(reply: FastifyReply, session: OperatorSession) {
  return sendPage(
    reply,
    404,
    operatorMessagePage(session, 'Phone not found', 'No phone with this id is in the inventory.', {
      href: `${OPERATOR_PATH}/fleet`,
      text: 'Back to the fleet',
    }),
  );
}

export function registerOperatorRoutes(app: App, operator: OperatorConsole): void {
  const { guard, sessions, fleet, http } = operator;
  const live = new FleetLive({
    rows: () => fleet.fleet(),
    render: fleetRow,
    stillSignedIn: async (request) => (await guard.session(request)) !== null,
    log: app.log,
    intervalMs: operator.liveIntervalMs,
  });
  operator.live = live;
  app.addHook('preClose', async () => live.closeAll());
  app.addHook('onRequest', guard.crossingHook());

  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    registerFormParser(scope);

    scope.get(OPERATOR_PATH, { config: PUBLIC, schema: HIDDEN }, async (_request, reply) =>
      redirect(reply, `${OPERATOR_PATH}/fleet`),
    );

    scope.get(`${OPERATOR_PATH}/fleet.js`, { config: PUBLIC, schema: HIDDEN }, async (_request, reply) =>
      reply
        .header('cache-control', 'public, max-age=3600')
        .header('x-content-type-options', 'nosniff')
        .type('text/javascript; charset=utf-8')
        .send(SCRIPT),
    );

    scope.get(`${OPERATOR_PATH}/sign-in`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
      const next = safeOperatorNext(text(request.query, 'next'));
      if (await guard.session(request)) return redirect(reply, next ?? `${OPERATOR_PATH}/fleet`);
      return sendPage(reply, 200, operatorSignInPage({ next }));
    });

    scope.post(
      `${OPERATOR_PATH}/sign-in`,
      { config: { ...PUBLIC, ipLimit: 'sign_in' }, schema: HIDDEN },
      async (request, reply) => {
        const next = safeOperatorNext(text(request.body, 'next'));
        if (!fromOwnOrigin(request, http))
          return sendPage(
            reply,
            403,
            operatorMessagePage(null, 'Request refused', 'This form was sent from another site.'),
          );
        const token = text(request.body, 'admin_token').trim();
        if (token === '')
          return sendPage(reply, 400, operatorSignInPage({ next, error: 'Enter an admin token (cg_adm_…).' }));
        const signedIn = await sessions.signIn(token);
        if (!signedIn)
          return sendPage(
            reply,
            400,
            operatorSignInPage({
              next,
              error: 'That admin token is not valid: it is unknown, revoked or not an admin token.',
            }),
          );
        reply.header('set-cookie', operatorCookie(http, signedIn.token, OPERATOR_SESSION_TTL_MS / 1000));
        return redirect(reply, next ?? `${OPERATOR_PATH}/fleet`);
      },
    );

    scope.post(`${OPERATOR_PATH}/sign-out`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
      if (!(await guard.session(request)))
        return reply
          .header('set-cookie', clearedOperatorCookie(http))
          .code(303)
          .header('location', `${OPERATOR_PATH}/sign-in`)
          .send();
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      await sessions.signOut(session);
      reply.header('set-cookie', clearedOperatorCookie(http));
      return redirect(reply, `${OPERATOR_PATH}/sign-in`);
    });

    scope.get(`${OPERATOR_PATH}/fleet`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
      const session = await guard.page(request, reply);
      if (!session) return reply;
      const asked = text(request.query, 'filter') || 'all';
      if (!FLEET_FILTERS.includes(asked as FleetFilter))
        return sendPage(
          reply,
          400,
          operatorMessagePage(session, 'Unknown filter', `The fleet can be filtered by: ${FLEET_FILTERS.join(', ')}.`, {
            href: `${OPERATOR_PATH}/fleet`,
            text: 'See every phone',
          }),
        );
      const filter = asked as FleetFilter;
      const all = await fleet.fleet();
      const rows = filter === 'all' ? all : await fleet.fleet(filter);
      return sendPage(
        reply,
        200,
        fleetPage(session, rows, {
          filter,
          // Only the unfiltered table is live: a filtered one would have rows leave and join it.
          liveUrl: filter === 'all' ? `${OPERATOR_PATH}/fleet/live` : null,
          notice: noticeOf(request.query, FLEET_NOTICES),
          summary: fleetSummary(all),
        }),
      );
    });

    scope.get(`${OPERATOR_PATH}/fleet/live`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
      const session = await guard.page(request, reply);
      if (!session) return reply;
      if (live.full)
        return reply
          .header('retry-after', '30')
          .code(429)
          .type('text/plain; charset=utf-8')
          .send('Too many live views are open; try again later.');
      await live.open(request, reply);
      return reply;
    });

    scope.get(`${OPERATOR_PATH}/audit`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
      const session = await guard.page(request, reply);
      if (!session) return reply;
      const targetId = text(request.query, 'target_id').trim();
      const cursor = text(request.query, 'cursor') || undefined;
      const back = { href: `${OPERATOR_PATH}/audit`, text: 'See every action' };
      if (targetId !== '' && !DEVICE_ID.test(targetId))
        return sendPage(
          reply,
          400,
          operatorMessagePage(session, 'Page not found', 'This list link is not valid.', back),
        );
      try {
        const page = await operator.audit.list({ limit: 50, cursor, target_id: targetId || undefined });
        return sendPage(
          reply,
          200,
          auditPage(session, page.entries, { targetId: targetId || null, nextCursor: page.next_cursor }),
        );
      } catch (error) {
        if (error instanceof ApiError && error.code === 'invalid_request')
          return sendPage(
            reply,
            400,
            operatorMessagePage(session, 'Page not found', 'This list link is not valid.', back),
          );
        throw error;
      }
    });

    scope.get(`${OPERATOR_PATH}/devices/:device_id`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
      const session = await guard.page(request, reply);
      if (!session) return reply;
      const id = param(request.params, 'device_id');
      if (!DEVICE_ID.test(id)) return deviceNotFound(reply, session);
      const flashed = flashedKeyOf(request, id, session);
      if (readCookie(request, DEVICE_KEY_COOKIE) !== undefined)
        reply.header('set-cookie', flashCookie(http, DEVICE_KEY_COOKIE, devicePath(id), null));
      const page = await renderDevice(operator, session, id, {
        rotatedKey: flashed?.secret,
        keyIsNew: flashed?.added,
        notice: noticeOf(request.query, HOLD_NOTICES),
      });
      return page === null ? deviceNotFound(reply, session) : sendPage(reply, 200, page);
    });

    for (const action of HOLD_ACTIONS) {
      scope.post(
        `${OPERATOR_PATH}/devices/:device_id/${action}`,
        { config: PUBLIC, schema: HIDDEN },
        async (request, reply) => {
          const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
          if (!session) return reply;
          const id = param(request.params, 'device_id');
          if (!DEVICE_ID.test(id)) return deviceNotFound(reply, session);
          const reason = text(request.body, 'reason').trim();
          const again = async (status: number, formError: NonNullable<DevicePageOptions['formError']>) => {
            const page = await renderDevice(operator, session, id, { formError });
            return page === null ? deviceNotFound(reply, session) : sendPage(reply, status, page);
          };
          if (reason === '')
            return again(400, { form: action, reason, error: 'Enter a reason: it is kept with the action.' });
          if (reason.length > REASON_MAX)
            return again(400, { form: action, reason, error: `The reason is at most ${REASON_MAX} characters.` });
          try {
            await actAs(operator, session, operator.operations.devices[HOLD_OPERATIONS[action]], {
              device_id: id,
              reason,
            });
          } catch (error) {
            if (!(error instanceof ApiError)) throw error;
            if (error.code === 'not_found') return deviceNotFound(reply, session);
            if (error.code !== 'conflict') throw error;
            return again(409, { form: action, reason, error: error.message, refusal: true });
          }
          return redirect(reply, `${devicePath(id)}?notice=${action}`);
        },
      );
    }

    scope.post(
      `${OPERATOR_PATH}/devices/:device_id/rotate-key`,
      { config: PUBLIC, schema: HIDDEN },
      async (request, reply) => {
        const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
        if (!session) return reply;
        const id = param(request.params, 'device_id');
        if (!DEVICE_ID.test(id)) return deviceNotFound(reply, session);
        const reason = text(request.body, 'reason').trim();
        if (reason.length > REASON_MAX) {
          const page = await renderDevice(operator, session, id, {
            formError: { form: 'rotate-key', error: `The reason is at most ${REASON_MAX} characters.`, reason },
          });
          return page === null ? deviceNotFound(reply, session) : sendPage(reply, 400, page);
        }
        let key: string;
        try {
          key = (
            await actAs<{ device_key: string }>(operator, session, operator.operations.devices.rotateDeviceKey, {
              device_id: id,
              ...(reason ? { reason } : {}),
            })
          ).device_key;
        } catch (error) {
          if (error instanceof ApiError && error.code === 'not_found') return deviceNotFound(reply, session);
          throw error;
        }
        flashDeviceKey(reply, http, session, id, key, 'rotated');
        return redirect(reply, devicePath(id));
      },
    );
  });
}

/** The device page, or null when the phone is not in the inventory. */
export async function renderDevice(
  operator: OperatorConsole,
  session: OperatorSession,
  id: string,
  options: DevicePageOptions,
): Promise<Html | null> {
  try {
    const row = await operator.fleet.device(id);
    const [telemetry, failures] = await Promise.all([operator.fleet.telemetry(id), operator.fleet.recentFailures(id)]);
    return devicePage(session, row, { telemetry, failures, ...options });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found') return null;
    throw error;
  }
}
