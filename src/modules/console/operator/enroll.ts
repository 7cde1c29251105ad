// The operator console's enrollment of an SMSGate phone (contract §13), from "Add a phone": the
// admin API's create_device_enrollment and revoke_device_enrollment through invoke, so the rules
// and the audit log are the API's:
//   POST /console/operator/devices/enrollments              makes one, 303 to its page
//   GET  /console/operator/devices/enrollments/:id          its secrets and QR code, once
//   POST /console/operator/devices/enrollments/:id/revoke   revokes it, 303 to the fleet
// Post/Redirect/Get as for a device key: the secrets ride a flash cookie scoped to the page,
// which shows them and clears it.
import type { App } from '../../../http/types.ts';
import { setFlash, takeFlash } from '../http.ts';
import { enrollmentPage, enrollmentPath, enrollmentShownPage, SHOWN, type ShownEnrollment } from './enroll-pages.ts';
import { idOf, OPERATOR_PATH, type OperatorAsk } from './http.ts';
import { operatorBinder, type OperatorConsole } from './module.ts';

const ENROLLMENT_COOKIE = 'cg_operator_enrollment';
const ENROLLMENT_ID = /^enr_[A-Za-z0-9]{1,60}$/;
type Flashed = ShownEnrollment & { adminTokenId: string };

/** The route's enrollment id; one of the wrong form is no enrollment. */
const enrollmentId = (ask: OperatorAsk) => idOf(ask, 'enrollment_id', ENROLLMENT_ID);

export function registerEnrollmentPages(scope: App, operator: OperatorConsole): void {
  const { http } = operator;
  const ops = operator.operations.enrollments;
  const bind = operatorBinder(scope, operator, {
    back: { href: `${OPERATOR_PATH}/devices/new`, text: 'Add a phone' },
    missing: 'enrollment',
    gone: 'No pending enrollment has this id: it was used, revoked or has expired.',
  });

  bind.post(`${OPERATOR_PATH}/devices/enrollments`, {
    run: async ({ session, reply, call }) => {
      const made = await call(ops.createEnrollment, {});
      const flash = Object.fromEntries(SHOWN.map((field) => [field, made[field]]));
      setFlash(reply, http, ENROLLMENT_COOKIE, enrollmentPath(made.id), {
        ...flash,
        adminTokenId: session.adminTokenId,
      });
      return enrollmentPath(made.id);
    },
  });

  bind.view(`${OPERATOR_PATH}/devices/enrollments/:enrollment_id`, async (ask) => {
    const { session } = ask;
    const id = enrollmentId(ask);
    const shown = takeFlash<Flashed>(
      ask,
      http,
      ENROLLMENT_COOKIE,
      enrollmentPath(id),
      (flash) =>
        flash.id === id &&
        flash.adminTokenId === session.adminTokenId &&
        SHOWN.every((field) => typeof flash[field] === 'string'),
    );
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
