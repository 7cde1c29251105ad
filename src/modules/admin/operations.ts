// Administrative operations of the foundation (src/operations): the dev mail outbox and the
// operator audit log, as operator operations; bound to REST in ./routes.ts.
import { Type } from 'typebox';
import { PaginationQuery, pageOf } from '../../http/pagination.ts';
import { Nullable, Timestamp } from '../../http/schemas.ts';
import { defineOperatorOperation } from '../../operations/operation.ts';
import type { AdminService } from './service.ts';
import type { OperatorAudit } from './audit.ts';

const MAIL_EXAMPLE = {
  id: 'mail_01jdx2a1b2c3d4e5f6g7h8j9k0',
  to: 'agent@example.com',
  subject: 'Your Cellgate verification code',
  text: 'Your code is 482913. It expires in 10 minutes.',
  created_at: '2026-11-21T12:00:00.000Z',
};

const OutboxMail = Type.Object(
  {
    id: Type.String(),
    to: Type.String(),
    subject: Type.String(),
    text: Type.String(),
    created_at: Timestamp,
  },
  { $id: 'OutboxMail', description: 'A mail the dev mailer kept instead of sending it.', examples: [MAIL_EXAMPLE] },
);

export const OutboxMailList = pageOf('messages', OutboxMail, 'OutboxMailList', 'A page of kept mail.', MAIL_EXAMPLE);

const AUDIT_EXAMPLE = {
  id: 'aud_01jdx2a1b2c3d4e5f6g7h8j9k0',
  actor: { admin_token_id: 'adm_01jdx1a1b2c3d4e5f6g7h8j9k0', label: 'night shift' },
  action: 'device.pause',
  target: { type: 'device', id: 'dev_01jdx1f2g3h4j5k6m7n8p9q0r1' },
  reason: 'SIM swap in slot 3',
  detail: null,
  created_at: '2026-11-21T12:00:00.000Z',
};

const AuditEntry = Type.Object(
  {
    id: Type.String({ description: 'aud_... id' }),
    actor: Type.Object({
      admin_token_id: Type.String({ description: 'The admin token that acted (adm_bootstrap: CELLGATE_ADMIN_TOKEN).' }),
      label: Nullable(Type.String({ description: "The token's label when the action was made." })),
    }),
    action: Type.String({
      description:
        'organization.suspend|reinstate|credit|grant, deposit.assign, device.create|update|delete|pause|resume|release|rotate_key, webhook.create|update|delete|rotate_secret|retry_delivery (the operator webhooks).',
    }),
    target: Type.Object({
      type: Type.String({ description: 'organization, deposit, device or webhook.' }),
      id: Type.String(),
    }),
    reason: Nullable(Type.String()),
    detail: Nullable(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'Particulars (amount, tier, months; a phone or webhook as it was created or changed).',
      }),
    ),
    created_at: Timestamp,
  },
  { $id: 'AuditEntry', description: 'One operator action: who, when, what and why.', examples: [AUDIT_EXAMPLE] },
);

export const AuditList = pageOf(
  'entries',
  AuditEntry,
  'AuditList',
  'A page of the operator audit log, newest first.',
  AUDIT_EXAMPLE,
);

/** The audit log's query: a page, optionally of one target. */
const AuditQuery = Type.Object({
  ...PaginationQuery,
  target_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'Only actions on this organization, device or deposit.',
    }),
  ),
});

const OutboxQuery = Type.Object({ ...PaginationQuery, to: Type.Optional(Type.String({ maxLength: 254 })) });

export function adminOperations(admin: AdminService, audit: OperatorAudit) {
  return {
    listOperatorAudit: defineOperatorOperation({
      name: 'list_operator_audit',
      summary: 'The operator audit log: every operator action, newest first',
      description: '',
      input: AuditQuery,
      output: AuditList,
      run: (_ctx, input) => audit.list(input),
    }),
    listOutboxMail: defineOperatorOperation({
      name: 'list_outbox_mail',
      summary: 'Mail kept by the dev mailer (when no SMTP server is configured)',
      description: '',
      input: OutboxQuery,
      output: OutboxMailList,
      run: (_ctx, input) => admin.listMail(input.to, input),
    }),
  };
}

export type AdminOperations = ReturnType<typeof adminOperations>;
