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
import { flashCookie, readCookie } from '../http.ts';
import { enrollmentPage, enrollmentPath, enrollmentShownPage, type ShownEnrollment } from './enroll-pages.ts';
import { OPERATOR_PATH } from './http.ts';
import { operatorMessagePage } from './layout.ts';
import { operatorBinder, type OperatorConsole } from './module.ts';
import type { OperatorAsk } from './routes.ts';
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

/** The route's enrollment id; one of the wrong form is no enrollment. */
function enrollmentId({ params }: OperatorAsk): string {
  const id = params.enrollment_id;
  if (!ENROLLMENT_ID.test(id)) throw new ApiError('not_found', 'No pending enrollment has this id.');
  return id;
}

export function registerEnrollmentPages(scope: App, operator: OperatorConsole): void {
  const { http } = operator;
  const ops = operator.operations.enrollments;
  const addPhone = { href: `${OPERATOR_PATH}/devices/new`, text: 'Add a phone' };
  const bind = operatorBinder(scope, operator, {
    back: addPhone,
    missing: 'enrollment',
    notFound: (session) =>
      operatorMessagePage(
        session,
        'Enrollment not found',
        'No pending enrollment has this id: it was used, revoked or has expired.',
        addPhone,
      ),
  });

  bind.post(`${OPERATOR_PATH}/devices/enrollments`, {
    run: async ({ session, reply, call }) => {
      const made = (await call(ops.createEnrollment, {})) as ShownEnrollment;
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
      return enrollmentPath(made.id);
    },
  });

  bind.view(`${OPERATOR_PATH}/devices/enrollments/:enrollment_id`, async (ask) => {
    const { request, reply, session } = ask;
    const id = enrollmentId(ask);
    const shown = flashedOf(request, id, session);
    if (readCookie(request, ENROLLMENT_COOKIE) !== undefined)
      reply.header('set-cookie', flashCookie(http, ENROLLMENT_COOKIE, enrollmentPath(id), null));
    if (!shown) return enrollmentShownPage(session, id);
    return enrollmentPage(session, shown, shown.server_url.replace(/\/mobile\/v1$/, ''));
  });

  bind.post(`${OPERATOR_PATH}/devices/enrollments/:enrollment_id/revoke`, {
    run: async (ask) => {
      await ask.call(ops.revokeEnrollment, { enrollment_id: enrollmentId(ask) });
      return `${OPERATOR_PATH}/fleet?notice=enrollment_revoked`;
    },
  });
}
