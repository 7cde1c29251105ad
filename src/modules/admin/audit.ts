// The operator audit log (issue 25): every operator action, who made it (admin token id and
// label), when (the injected clock), what (action on a target) and why. Services record their
// action with recordOperatorAction() inside the transaction that makes it, so an action and its
// record commit together; the console and GET /v1/admin/audit read it back, newest first.
import type { Executor } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { pageById, type PageQuery } from '../../lib/pagination.ts';
import type { AdminPrincipal } from '../../operations/principals.ts';
import type { AdminRepository } from './repository.ts';
import type { OperatorAuditTable } from './tables.ts';

/** The bootstrap token (CELLGATE_ADMIN_TOKEN) has no row; its records carry this label. */
export const BOOTSTRAP_LABEL = 'CELLGATE_ADMIN_TOKEN';

/** An operator action to record. */
export interface OperatorAction {
  /** The admin token that acted. */
  actor: AdminPrincipal;
  /** e.g. organization.suspend, device.pause. */
  action: string;
  /** organization, device, deposit. */
  targetType: string;
  targetId: string;
  reason: string | null;
  detail?: Record<string, unknown>;
}

/** What other modules call (billing, devices, the operator console): one record, in their transaction. */
export type RecordOperatorAction = (ex: Executor, action: OperatorAction) => Promise<void>;

/** Who makes an operator action, and why (kept in the operator audit log). */
export interface OperatorBy {
  actor: AdminPrincipal;
  reason?: string | null;
}

/** A service's record of its actions on one type of target: `record(tx, by, action, id, detail?)`. */
export const recorderOf =
  (audit: RecordOperatorAction, targetType: string) =>
  (ex: Executor, by: OperatorBy, action: string, targetId: string, detail?: Record<string, unknown>) =>
    audit(ex, { actor: by.actor, action, targetType, targetId, reason: by.reason ?? null, detail });

export function auditView(row: OperatorAuditTable) {
  return {
    id: row.id,
    actor: { admin_token_id: row.admin_token_id, label: row.admin_token_label },
    action: row.action,
    target: { type: row.target_type, id: row.target_id },
    reason: row.reason,
    detail: row.detail === null ? null : (JSON.parse(row.detail) as Record<string, unknown>),
    created_at: row.created_at,
  };
}

export type AuditEntry = ReturnType<typeof auditView>;

export class OperatorAudit {
  private readonly repo: AdminRepository;
  private readonly clock: Clock;

  constructor(deps: { repo: AdminRepository; clock: Clock }) {
    this.repo = deps.repo;
    this.clock = deps.clock;
  }

  /** Records one operator action in `ex` (the transaction of the action itself). */
  readonly recordOperatorAction: RecordOperatorAction = async (ex, action) => {
    const now = this.clock.now();
    const label =
      action.actor.tokenId === 'adm_bootstrap'
        ? BOOTSTRAP_LABEL
        : ((await this.repo.tokenLabel(ex, action.actor.tokenId)) ?? null);
    await this.repo.insertAudit(ex, {
      id: newId('aud', this.clock, now),
      admin_token_id: action.actor.tokenId,
      admin_token_label: label,
      action: action.action,
      target_type: action.targetType,
      target_id: action.targetId,
      reason: action.reason,
      detail: action.detail ? JSON.stringify(action.detail) : null,
      created_at: now.toISOString(),
    });
  };

  /** A page of the log, newest first; `targetId` narrows it to one organization, device or deposit. */
  async list(query: PageQuery & { target_id?: string }) {
    const page = await pageById(query, (before, count) => this.repo.listAudit(query.target_id, before, count));
    return { entries: page.items.map(auditView), next_cursor: page.next_cursor };
  }
}
