// SQL for webhook endpoints, their delivery queue and the attempt log.
import { sql, type Insertable, type Kysely, type Updateable } from 'kysely';
import type { DB, Executor } from '../../db/schema.ts';
import { transact } from '../../db/transaction.ts';
import type { DeliveryStatus, WebhookAttemptsTable, WebhookDeliveriesTable, WebhooksTable } from './tables.ts';

/** An attempt's changes to its delivery, written where its claim (`token`) still holds the lease. */
export type AttemptOutcome = { token: string; last_latency_ms: number } & Pick<
  WebhookDeliveriesTable,
  'id' | 'status' | 'attempts' | 'next_attempt_at' | 'last_status_code' | 'last_error' | 'updated_at'
>;

/** The comparison that finds an owner's endpoints: an organization's, or (null) the operator's. */
const ownerIs = (organizationId: string | null) => (organizationId === null ? 'is' : '=');

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
  findByClientId(organizationId: string | null, clientId: string) {
    return this.db
      .selectFrom('webhooks')
      .selectAll()
      .where('organization_id', ownerIs(organizationId), organizationId)
      .where('client_id', '=', clientId)
      .executeTakeFirst();
  }

  findWebhook(ex: Executor, organizationId: string | null, id: string) {
    return ex
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', id)
      .where('organization_id', ownerIs(organizationId), organizationId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }

  listWebhooks(organizationId: string | null, beforeId: string | null, limit: number) {
    let query = this.db
      .selectFrom('webhooks')
      .selectAll()
      .where('organization_id', ownerIs(organizationId), organizationId)
      .where('deleted_at', 'is', null);
    if (beforeId) query = query.where('id', '<', beforeId);
    return query.orderBy('id', 'desc').limit(limit).execute();
  }

  async updateWebhook(ex: Executor, id: string, changes: Updateable<WebhooksTable>): Promise<void> {
    await ex.updateTable('webhooks').set(changes).where('id', '=', id).execute();
  }

  /** Deletes a live endpoint (soft: its deliveries stay readable); false when it was deleted already. */
  async deleteWebhook(ex: Executor, id: string, now: string): Promise<boolean> {
    const result = await ex
      .updateTable('webhooks')
      .set({ deleted_at: now, updated_at: now })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** The endpoints an event of this organization fans out to. */
  enabledWebhooks(ex: Executor, organizationId: string | null) {
    return ex
      .selectFrom('webhooks')
      .select(['id', 'event_types'])
      .where('organization_id', ownerIs(organizationId), organizationId)
      .where('enabled', '=', 1)
      .where('deleted_at', 'is', null)
      .execute();
  }

  async markFailing(ex: Executor, id: string, now: string): Promise<void> {
    await ex
      .updateTable('webhooks')
      .set({ failing_since: now })
      .where('id', '=', id)
      .where('failing_since', 'is', null)
      .execute();
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
        eb.fn
          .sum<number>(
            eb
              .case()
              .when(eb.or([eb('failing_since', 'is not', null), eb('disabled_reason', 'is not', null)]))
              .then(1)
              .else(0)
              .end(),
          )
          .as('failing'),
      ])
      .where('organization_id', ownerIs(organizationId), organizationId)
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
    // Due rows off the next_attempt_at index, the scan stopping at the limit. No ORDER BY: a
    // sort would read the whole backlog whenever PostgreSQL's estimate favours a bitmap scan;
    // index and heap order are close to oldest first anyway.
    const claim = this.db
      .updateTable('webhook_deliveries')
      .set({ lease_token: token, next_attempt_at: leaseUntil })
      .where('id', 'in', (eb) => {
        const due = eb
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('next_attempt_at', '<=', now)
          .where('status', 'in', ['pending', 'retrying'])
          .limit(limit);
        return this.postgres ? due.forUpdate().skipLocked() : due;
      });
    // PostgreSQL re-checks these on a row another claim changed after the subquery read it.
    const checked = this.postgres
      ? claim.where('status', 'in', ['pending', 'retrying']).where('next_attempt_at', '<=', now)
      : claim;
    return checked.returningAll().execute();
  }

  /**
   * Writes attempts' outcomes in one statement, each only where its claim still holds the lease;
   * returns the ids written (a lease that ran out belongs to another claim now).
   */
  async finishAttempts(ex: Executor, outcomes: AttemptOutcome[]): Promise<Set<string>> {
    if (outcomes.length === 0) return new Set();
    const int = (value: number | null) => sql`cast(${value} as integer)`;
    const rows = outcomes.map(
      (o) =>
        sql`(${o.id}, ${o.token}, ${o.status}, ${int(o.attempts)}, ${o.next_attempt_at}, ${int(o.last_status_code)}, ${o.last_error}, ${int(o.last_latency_ms)}, ${o.updated_at})`,
    );
    const result = await sql<{ id: string }>`
      with outcome (id, token, status, attempts, next_attempt_at, last_status_code, last_error, last_latency_ms, updated_at) as (values ${sql.join(rows)})
      update webhook_deliveries set
        status = outcome.status, attempts = outcome.attempts, next_attempt_at = outcome.next_attempt_at,
        last_status_code = outcome.last_status_code, last_error = outcome.last_error,
        last_latency_ms = outcome.last_latency_ms, updated_at = outcome.updated_at, lease_token = null
      from outcome
      where webhook_deliveries.id = outcome.id and webhook_deliveries.lease_token = outcome.token
      returning webhook_deliveries.id`.execute(ex);
    return new Set(result.rows.map((r) => r.id));
  }

  async insertAttempts(ex: Executor, rows: Insertable<WebhookAttemptsTable>[]): Promise<void> {
    if (rows.length > 0) await ex.insertInto('webhook_attempts').values(rows).execute();
  }

  findDelivery(webhookId: string, id: string) {
    return this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', id)
      .where('webhook_id', '=', webhookId)
      .executeTakeFirst();
  }

  listDeliveries(webhookId: string, beforeId: string | null, limit: number) {
    let query = this.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId);
    if (beforeId) query = query.where('id', '<', beforeId);
    return query.orderBy('id', 'desc').limit(limit).execute();
  }

  attemptsOf(deliveryIds: string[]) {
    if (deliveryIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', 'in', deliveryIds)
      .orderBy('id')
      .execute();
  }

  /** Takes claimed deliveries of a disabled or deleted endpoint off the queue until it is enabled. */
  async hold(ids: string[], token: string, now: string): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: null, lease_token: null, updated_at: now })
      .where('id', 'in', ids)
      .where('lease_token', '=', token)
      .execute();
  }

  /** Puts an enabled endpoint's held deliveries back on the queue, due now. */
  async release(ex: Executor, webhookId: string, now: string): Promise<void> {
    await ex
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: now, updated_at: now })
      .where('webhook_id', '=', webhookId)
      .where('status', 'in', ['pending', 'retrying'])
      .where('next_attempt_at', 'is', null)
      .execute();
  }

  /** Makes a delivery due now unless an attempt holds a live lease on it; false when one does. */
  async requeue(ex: Executor, id: string, status: DeliveryStatus, now: string): Promise<boolean> {
    const result = await ex
      .updateTable('webhook_deliveries')
      .set({ status, next_attempt_at: now, lease_token: null, updated_at: now })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('lease_token', 'is', null), eb('next_attempt_at', '<=', now)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Deletes up to `limit` finished deliveries last changed before `before`, with their attempts; how many. */
  async deleteFinishedBefore(before: string, limit: number): Promise<number> {
    return transact(this.db, async (tx) => {
      const ids = (
        await tx
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('status', 'in', ['succeeded', 'failed'])
          .where('updated_at', '<', before)
          .limit(limit)
          .execute()
      ).map((r) => r.id);
      if (ids.length === 0) return 0;
      await tx.deleteFrom('webhook_attempts').where('delivery_id', 'in', ids).execute();
      await tx.deleteFrom('webhook_deliveries').where('id', 'in', ids).execute();
      return ids.length;
    });
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
