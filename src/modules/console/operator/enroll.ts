// The operator console's enrollment of an SMSGate phone (contract §13), from "Add a phone": the
// admin API's create_device_enrollment and revoke_device_enrollment through invoke, so the rules
// and the audit log are the API's:
//   POST /console/operator/devices/enrollments              makes one, 303 to its page
//   GET  /console/operator/devices/enrollments/:id          its secrets and QR code, once
//   POST /console/operator/devices/enrollments/:id/revoke   revokes it, 303 to the fleet
// Post/Redirect/Get as for a device key: the secrets ride a flash cookie scoped to the page,
// which shows them and clears it.
import type { FastifyRequest } from 'fastify';
import type { App } from '../../../http/types.ts';
import { ApiError } from '../../../lib/errors.ts';
import { param, text } from '../account/shared.ts';
import { flashCookie, readCookie, registerFormParser, sendPage } from '../http.ts';
import { enrollmentPage, enrollmentPath, enrollmentShownPage, type ShownEnrollment } from './enroll-pages.ts';
import { OPERATOR_PATH, redirect } from './http.ts';
import { operatorMessagePage } from './layout.ts';
import { actAs, type OperatorConsole } from './module.ts';
import { HIDDEN, PUBLIC } from './routes.ts';
import type { OperatorSession } from './service.ts';

const ENROLLMENT_COOKIE = 'cg_operator_enrollment';
const ENROLLMENT_ID = /^enr_[A-Za-z0-9]{1,60}$/;
type Flashed = ShownEnrollment & { adminTokenId: string };

/** The enrollment the flash cookie carries, if it is this one and this operator's. */
function flashedOf(request: FastifyRequest, id: string, session: OperatorSession): ShownEnrollment | undefined {
  const value = readCookie(request, ENROLLMENT_COOKIE);
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Partial<Flashed>;
    if (parsed.id !== id || parsed.adminTokenId !== session.adminTokenId) return undefined;
    const fields = ['token', 'code', 'server_url', 'code_expires_at', 'expires_at'] as const;
    if (!fields.every((field) => typeof parsed[field] === 'string')) return undefined;
    return parsed as ShownEnrollment;
  } catch {
    return undefined;
  }
}

const notFound = (session: OperatorSession) =>
  operatorMessagePage(
    session,
    'Enrollment not found',
    'No pending enrollment has this id: it was used, revoked or has expired.',
    {
      href: `${OPERATOR_PATH}/devices/new`,
      text: 'Add a phone',
    },
  );

export function registerEnrollmentPages(app: App, operator: OperatorConsole): void {
  const { guard, http } = operator;
  const ops = operator.operations.enrollments;
  const route = { config: PUBLIC, schema: HIDDEN };

  app.register(async (scope) => {
    registerFormParser(scope);

    scope.post(`${OPERATOR_PATH}/devices/enrollments`, route, async (request, reply) => {
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      const made = await actAs<ShownEnrollment>(operator, session, ops.createEnrollment, {});
      const flash: Flashed = {
        id: made.id,
        token: made.token,
        code: made.code,
        server_url: made.server_url,
        code_expires_at: made.code_expires_at,
        expires_at: made.expires_at,
        adminTokenId: session.adminTokenId,
      };
      reply.header(
        'set-cookie',
        flashCookie(
          http,
          ENROLLMENT_COOKIE,
          enrollmentPath(made.id),
          Buffer.from(JSON.stringify(flash)).toString('base64url'),
        ),
      );
      return redirect(reply, enrollmentPath(made.id));
    });

    scope.get(`${OPERATOR_PATH}/devices/enrollments/:enrollment_id`, route, async (request, reply) => {
      const session = await guard.page(request, reply);
      if (!session) return reply;
      const id = param(request.params, 'enrollment_id');
      if (!ENROLLMENT_ID.test(id)) return sendPage(reply, 404, notFound(session));
      const shown = flashedOf(request, id, session);
      if (readCookie(request, ENROLLMENT_COOKIE) !== undefined)
        reply.header('set-cookie', flashCookie(http, ENROLLMENT_COOKIE, enrollmentPath(id), null));
      if (!shown) return sendPage(reply, 200, enrollmentShownPage(session, id));
      const baseUrl = shown.server_url.replace(/\/mobile\/v1$/, '');
      return sendPage(reply, 200, await enrollmentPage(session, shown, baseUrl));
    });

    scope.post(`${OPERATOR_PATH}/devices/enrollments/:enrollment_id/revoke`, route, async (request, reply) => {
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      const id = param(request.params, 'enrollment_id');
      if (!ENROLLMENT_ID.test(id)) return sendPage(reply, 404, notFound(session));
      try {
        await actAs(operator, session, ops.revokeEnrollment, { enrollment_id: id });
      } catch (error) {
        if (error instanceof ApiError && error.code === 'not_found') return sendPage(reply, 404, notFound(session));
        throw error;
      }
      return redirect(reply, `${OPERATOR_PATH}/fleet?notice=enrollment_revoked`);
    });
  });
}
