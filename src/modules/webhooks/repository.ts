// SQL for webhook endpoints, their delivery queue and the attempt log.
import type { Insertable, Kysely, Updateable } from 'kysely';
import type { DB, Executor } from '../../db/schema.ts';
import type { DeliveryStatus, WebhookAttemptsTable, WebhookDeliveriesTable, WebhooksTable } from './tables.ts';

export class WebhooksRepository {
  readonly db: Kysely<DB>;
  private readonly postgres: boolean;

  constructor(db: Kysely<DB>, dialect: 'sqlite' | 'postgres') {
    this.db = db;
    this.postgres = dialect === 'postgres';
  }

  async insertWebhook(ex: Executor, row: WebhooksTable): Promise<void> {
    await ex.insertInto('webhooks').values(row).execute();
  }

  /** Includes deleted webhooks: a client_id is taken forever. */
  findByClientId(organizationId: string, clientId: string) {
    return this.db.selectFrom('webhooks').selectAll().where('organization_id', '=', organizationId).where('client_id', '=', clientId).executeTakeFirst();
  }

  findWebhook(ex: Executor, organizationId: string, id: string) {
    return ex
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }

  listWebhooks(organizationId: string, beforeId: string | null, limit: number) {
    let query = this.db.selectFrom('webhooks').selectAll().where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
    if (beforeId) query = query.where('id', '<', beforeId);
    return query.orderBy('id', 'desc').limit(limit).execute();
  }

  async updateWebhook(ex: Executor, id: string, changes: Updateable<WebhooksTable>): Promise<void> {
    await ex.updateTable('webhooks').set(changes).where('id', '=', id).execute();
  }

  /** The endpoints an event of this organization fans out to. */
  enabledWebhooks(ex: Executor, organizationId: string) {
    return ex
      .selectFrom('webhooks')
      .select(['id', 'event_types'])
      .where('organization_id', '=', organizationId)
      .where('enabled', '=', 1)
      .where('deleted_at', 'is', null)
      .execute();
  }

  async markFailing(ex: Executor, id: string, now: string): Promise<void> {
    await ex.updateTable('webhooks').set({ failing_since: now }).where('id', '=', id).where('failing_since', 'is', null).execute();
  }

  async clearFailing(ex: Executor, id: string): Promise<void> {
    await ex.updateTable('webhooks').set({ failing_since: null }).where('id', '=', id).execute();
  }

  /** Disables an enabled endpoint; false when it was already disabled (someone else won). */
  async disable(ex: Executor, id: string, reason: string, now: string): Promise<boolean> {
    const result = await ex
      .updateTable('webhooks')
      .set({ enabled: 0, disabled_reason: reason, updated_at: now })
      .where('id', '=', id)
      .where('enabled', '=', 1)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  webhooksByIds(ids: string[]) {
    return this.db.selectFrom('webhooks').selectAll().where('id', 'in', ids).execute();
  }

  async summary(organizationId: string): Promise<{ total: number; failing: number }> {
    const row = await this.db
      .selectFrom('webhooks')
      .select((eb) => [
        eb.fn.countAll<number>().as('total'),
        eb.fn.sum<number>(eb.case().when(eb.or([eb('failing_since', 'is not', null), eb('disabled_reason', 'is not', null)])).then(1).else(0).end()).as('failing'),
      ])
      .where('organization_id', '=', organizationId)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow();
    return { total: Number(row.total), failing: Number(row.failing ?? 0) };
  }

  async insertDeliveries(ex: Executor, rows: WebhookDeliveriesTable[]): Promise<void> {
    if (rows.length > 0) await ex.insertInto('webhook_deliveries').values(rows).execute();
  }

  /**
   * Claims up to `limit` due deliveries of enabled endpoints for one attempt each: stamps them
   * with `token` and moves next_attempt_at to the lease's end, so a process that dies mid-attempt
   * only delays the delivery. On PostgreSQL, SKIP LOCKED lets processes claim disjoint rows
   * concurrently; SQLite has a single writer, so the statement alone is atomic there.
   */
  claimDue(now: string, leaseUntil: string, token: string, limit: number) {
    // No ORDER BY: the (status, next_attempt_at) index yields the oldest due rows of each status
    // in order and the scan stops at the limit, where a sort would read the whole backlog.
    const claim = this.db
      .updateTable('webhook_deliveries')
      .set({ lease_token: token, next_attempt_at: leaseUntil })
      .where('id', 'in', (eb) => {
        const due = eb
          .selectFrom('webhook_deliveries as d')
          .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
          .select('d.id')
          .where('d.status', 'in', ['pending', 'retrying'])
          .where('d.next_attempt_at', '<=', now)
          .where('w.enabled', '=', 1)
          .where('w.deleted_at', 'is', null)
          .limit(limit);
        return this.postgres ? due.forUpdate('d').skipLocked() : due;
      });
    // PostgreSQL re-checks these on a row another claim changed after the subquery read it.
    const checked = this.postgres ? claim.where('status', 'in', ['pending', 'retrying']).where('next_attempt_at', '<=', now) : claim;
    return checked.returningAll().execute();
  }

  /** Writes an attempt's outcome if this claim still holds the lease; false when it was lost. */
  async finishAttempt(ex: Executor, id: string, token: string, changes: Updateable<WebhookDeliveriesTable>): Promise<boolean> {
    const result = await ex
      .updateTable('webhook_deliveries')
      .set({ ...changes, lease_token: null })
      .where('id', '=', id)
      .where('lease_token', '=', token)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async insertAttempts(ex: Executor, rows: Insertable<WebhookAttemptsTable>[]): Promise<void> {
    if (rows.length > 0) await ex.insertInto('webhook_attempts').values(rows).execute();
  }

  findDelivery(webhookId: string, id: string) {
    return this.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).where('webhook_id', '=', webhookId).executeTakeFirst();
  }

  listDeliveries(webhookId: string, beforeId: string | null, limit: number) {
    let query = this.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId);
    if (beforeId) query = query.where('id', '<', beforeId);
    return query.orderBy('id', 'desc').limit(limit).execute();
  }

  attemptsOf(deliveryIds: string[]) {
    if (deliveryIds.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('id').execute();
  }

  /** Makes a delivery due now unless an attempt holds a live lease on it; false when one does. */
  async requeue(id: string, status: DeliveryStatus, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('webhook_deliveries')
      .set({ status, next_attempt_at: now, lease_token: null, updated_at: now })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('lease_token', 'is', null), eb('next_attempt_at', '<=', now)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Ends the queued deliveries of a deleted endpoint. */
  async abandonQueued(ex: Executor, webhookId: string, now: string): Promise<void> {
    await ex
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', next_attempt_at: null, last_error: 'webhook deleted', updated_at: now })
      .where('webhook_id', '=', webhookId)
      .where('status', 'in', ['pending', 'retrying'])
      .execute();
  }
}
