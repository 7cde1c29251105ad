// Enrollments of SMSGate phones (contract §13): the operator's operations, bound to
// /v1/admin/devices/enrollments and called by the operator console's "Add a phone" page.
import { Type } from 'typebox';
import { PaginationQuery, pageOf } from '../../http/pagination.ts';
import { Body, Nullable, Timestamp } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { optionalBody } from '../../http/validation.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { restRoutes } from '../../operations/rest-routes.ts';
import { defineOperatorOperation } from '../../operations/operation.ts';
import type { EnrollmentsService } from './enrollments.ts';
import { DeviceSettings } from './routes.ts';

const EXAMPLE = {
  id: 'enr_01jdx1f2g3h4j5k6m7n8p9q0r1',
  label: 'Rack B, slot 1',
  send_rate_per_minute: 20,
  daily_send_limit: null,
  expires_at: '2026-11-22T12:00:00.000Z',
  code_expires_at: '2026-11-21T12:10:00.000Z',
  created_at: '2026-11-21T12:00:00.000Z',
};

const enrollmentFields = {
  id: Type.String({ description: 'enr_... id' }),
  label: Nullable(Type.String({ description: "The phone's label; null: the name the app gives." })),
  send_rate_per_minute: Nullable(
    Type.Integer({ description: "The phone's SMS segments per minute; null: the default." }),
  ),
  daily_send_limit: Nullable(
    Type.Integer({ description: "The phone's SMS segments per 24 hours; null: the default." }),
  ),
  expires_at: { ...Timestamp, description: 'The private token works until then (24 hours), once.' },
  code_expires_at: { ...Timestamp, description: 'The code works until then (10 minutes), once.' },
  created_at: Timestamp,
};

export const Enrollment = Type.Object(enrollmentFields, {
  $id: 'Enrollment',
  description: 'A pending enrollment of a phone running the SMSGate app (its token and code are not shown again).',
  examples: [EXAMPLE],
});

export const EnrollmentWithSecrets = Type.Object(
  {
    ...enrollmentFields,
    token: Type.String({
      description: "cg_enr_... : the app's private token (Settings → Cloud server → private token). Shown once.",
    }),
    code: Type.String({
      pattern: '^[0-9]{6}$',
      description: "6 digits for the app's code sign-in, valid 10 minutes. Shown once.",
    }),
    server_url: Type.String({ description: "{base_url}/mobile/v1: the app's server address (API URL)." }),
  },
  {
    $id: 'EnrollmentWithSecrets',
    description: 'A new enrollment with its private token and code, shown once.',
    examples: [
      {
        ...EXAMPLE,
        token: 'cg_enr_Q2w3E4r5T6y7U8i9O0p1A2s3D4f5G6h7',
        code: '402913',
        server_url: 'https://cellgate.example.com/mobile/v1',
      },
    ],
  },
);

export const EnrollmentList = pageOf(
  'enrollments',
  Enrollment,
  'EnrollmentList',
  'A page of pending enrollments, newest first.',
  EXAMPLE,
);

const EnrollmentId = Type.String({ minLength: 1, maxLength: 64, description: 'enr_... id' });

export function enrollmentOperations(enrollments: EnrollmentsService) {
  return {
    createEnrollment: defineOperatorOperation({
      name: 'create_device_enrollment',
      summary: 'Enroll a phone running the SMSGate app',
      description:
        "Returns the private token and a 6-digit code once: the app signs in with either at server_url (POST /mobile/v1/device) and becomes a phone of the inventory, one line per SIM card. The app reports its SIM numbers redacted to their last 4 digits: set each line's number with PATCH /v1/admin/devices/{id} to give it a cell. Single use; the token expires after 24 hours, the code after 10 minutes. Recorded in the operator audit log.",
      status: 201,
      input: Body(DeviceSettings, { examples: [{ label: 'Rack B, slot 1', send_rate_per_minute: 20 }] }),
      output: EnrollmentWithSecrets,
      run: (ctx, input) => enrollments.create(input, { actor: ctx.principal }),
    }),
    listEnrollments: defineOperatorOperation({
      name: 'list_device_enrollments',
      summary: 'List pending enrollments, newest first',
      description: 'Unused and unexpired enrollments; their token and code are not shown again.',
      input: Type.Object(PaginationQuery),
      output: EnrollmentList,
      run: (_ctx, input) => enrollments.list(input),
    }),
    revokeEnrollment: defineOperatorOperation({
      name: 'revoke_device_enrollment',
      summary: 'Revoke a pending enrollment',
      description:
        'Its token and code stop working at once. 404 when unknown or already used. Recorded in the operator audit log.',
      status: 204,
      input: Type.Object({ enrollment_id: EnrollmentId }),
      output: Type.Null(),
      run: (ctx, input) => enrollments.revoke(input.enrollment_id, { actor: ctx.principal }).then(() => null),
    }),
  };
}

export type EnrollmentOperations = ReturnType<typeof enrollmentOperations>;

export function registerEnrollmentRoutes(app: App, rest: RestBinder, ops: EnrollmentOperations): void {
  const admin = restRoutes(app, rest, ['Admin']);
  const enrollments = '/v1/admin/devices/enrollments';
  const created = 'The enrollment with its private token and code (shown once).';
  admin(ops.createEnrollment, 'POST', enrollments, created, { preValidation: optionalBody });
  admin(ops.listEnrollments, 'GET', enrollments, 'A page of pending enrollments, newest first.');
  const revoked = 'Revoked; its token and code stop working.';
  admin(ops.revokeEnrollment, 'DELETE', `${enrollments}/:enrollment_id`, revoked);
}
