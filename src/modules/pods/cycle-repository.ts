// SQL for cycle jobs and their items. Jobs are claimed with a lease (any process); items move
// forward only, each by a conditional update, so a repeated or concurrent step changes nothing.
import { sql, type ExpressionBuilder } from 'kysely';
import { isPostgres } from '../../db/migrations/dialect.ts';
import type { DB, Executor } from '../../db/schema.ts';
import { chunks, Repository } from './repository.ts';
import type { CycleJobItemsTable, CycleJobsTable, ItemStatus, JobStatus } from './tables.ts';

const OPEN_JOB: JobStatus[] = ['queued', 'running'];

export class CycleRepository extends Repository {
  private readonly postgres = isPostgres(this.db);

  async insertJob(ex: Executor, row: CycleJobsTable): Promise<void> {
    await ex.insertInto('cycle_jobs').values(row).execute();
  }

  /** Any job of the organization with this client_id: a client_id is taken forever. */
  findJobByClientId(organizationId: string, clientId: string) {
    return this.db
      .selectFrom('cycle_jobs')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('client_id', '=', clientId)
      .executeTakeFirst();
  }

  findJob(ex: Executor, organizationId: string, podId: string, id: string) {
    return ex
      .selectFrom('cycle_jobs')
      .selectAll()
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .where('pod_id', '=', podId)
      .executeTakeFirst();
  }

  listJobs(podId: string, beforeId: string | null, limit: number) {
    let query = this.db.selectFrom('cycle_jobs').selectAll().where('pod_id', '=', podId);
    if (beforeId) query = query.where('id', '<', beforeId);
    return query.orderBy('id', 'desc').limit(limit).execute();
  }

  openJobsOfPod(ex: Executor, podId: string) {
    return ex
      .selectFrom('cycle_jobs')
      .selectAll()
      .where('pod_id', '=', podId)
      .where('status', 'in', OPEN_JOB)
      .execute();
  }

  async insertItems(ex: Executor, rows: readonly CycleJobItemsTable[]): Promise<void> {
    for (const chunk of chunks(rows)) await ex.insertInto('cycle_job_items').values(chunk).execute();
  }

  /**
   * One pending item per number, numbered from 1 in order, in one statement whatever the count:
   * the numbers travel as one JSON array parameter, which the database expands (10,000 rows of
   * bound values would take many statements and most of a broadcast's time to answer).
   */
  async insertRecipients(ex: Executor, jobId: string, numbers: readonly string[], now: string): Promise<void> {
    const json = JSON.stringify(numbers);
    const rows = this.postgres
      ? sql`select ${jobId}, ordinality, value, 'pending', ${now} from json_array_elements_text(cast(${json} as json)) with ordinality`
      : sql`select ${jobId}, key + 1, value, 'pending', ${now} from json_each(${json})`;
    await sql`insert into cycle_job_items (job_id, seq, recipient, status, updated_at) ${rows}`.execute(ex);
  }

  /** One pending item per number of the list, numbered in number order, in one statement. */
  async insertItemsFromList(ex: Executor, jobId: string, listId: string, now: string): Promise<void> {
    await sql`
      insert into cycle_job_items (job_id, seq, recipient, status, updated_at)
      select ${jobId}, row_number() over (order by number), number, 'pending', ${now}
      from contact_list_numbers where list_id = ${listId}`.execute(ex);
  }

  async countItems(ex: Executor, jobId: string): Promise<number> {
    const row = await ex
      .selectFrom('cycle_job_items')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('job_id', '=', jobId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Recipients of the organization's open broadcasts scheduled after `now` not planned yet (each a scheduled message to be). */
  async pendingScheduled(ex: Executor, organizationId: string, now: string): Promise<number> {
    const row = await ex
      .selectFrom('cycle_job_items')
      .innerJoin('cycle_jobs', 'cycle_jobs.id', 'cycle_job_items.job_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('cycle_jobs.status', 'in', OPEN_JOB)
      .where('cycle_jobs.organization_id', '=', organizationId)
      .where('cycle_jobs.send_at', '>', now)
      .where('cycle_job_items.status', '=', 'pending')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Items per status of each job. */
  async countsByStatus(ex: Executor, jobIds: readonly string[]) {
    if (jobIds.length === 0) return [];
    const rows = await ex
      .selectFrom('cycle_job_items')
      .select(['job_id', 'status'])
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('job_id', 'in', jobIds)
      .groupBy(['job_id', 'status'])
      .execute();
    return rows.map((row) => ({ ...row, n: Number(row.n) }));
  }

  // --- the worker's claim on a job ---

  /** Leases up to `limit` open jobs whose lease is free or ran out, oldest first. */
  claimJobs(now: string, leaseUntil: string, token: string, limit: number) {
    const free = (eb: ExpressionBuilder<DB, 'cycle_jobs'>) =>
      eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]);
    const claim = this.db
      .updateTable('cycle_jobs')
      .set({ lease_token: token, lease_until: leaseUntil })
      .where('id', 'in', (eb) => {
        const due = eb
          .selectFrom('cycle_jobs')
          .select('id')
          .where('status', 'in', OPEN_JOB)
          .where(free)
          .orderBy('id')
          .limit(limit);
        return this.postgres ? due.forUpdate().skipLocked() : due;
      })
      .where('status', 'in', OPEN_JOB)
      .where(free);
    return claim.returningAll().execute();
  }

  /** Extends the lease while this claim still holds it; false when it was lost. */
  async renewLease(id: string, token: string, leaseUntil: string): Promise<boolean> {
    const result = await this.db
      .updateTable('cycle_jobs')
      .set({ lease_until: leaseUntil })
      .where('id', '=', id)
      .where('lease_token', '=', token)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async releaseLease(id: string, token: string): Promise<void> {
    await this.db
      .updateTable('cycle_jobs')
      .set({ lease_token: null, lease_until: null })
      .where('id', '=', id)
      .where('lease_token', '=', token)
      .execute();
  }

  /** Moves a job in one of `from` to `status`; the row, or undefined when it was no longer in them. */
  finishOrStart(ex: Executor, id: string, from: readonly JobStatus[], changes: Partial<CycleJobsTable>) {
    return ex
      .updateTable('cycle_jobs')
      .set(changes)
      .where('id', '=', id)
      .where('status', 'in', from)
      .returningAll()
      .executeTakeFirst();
  }

  /** Ends an open job, its lease with it; the row, or undefined when it was no longer open. */
  finish(ex: Executor, id: string, status: 'completed' | 'failed' | 'canceled', at: string) {
    const ended = { status, completed_at: at, updated_at: at, lease_token: null, lease_until: null };
    return this.finishOrStart(ex, id, OPEN_JOB, ended);
  }

  async setSyncAfter(id: string, seq: number): Promise<void> {
    await this.db.updateTable('cycle_jobs').set({ sync_after: seq }).where('id', '=', id).execute();
  }

  // --- items ---

  itemsIn(jobId: string, statuses: readonly ItemStatus[], afterSeq: number, limit: number) {
    return this.db
      .selectFrom('cycle_job_items')
      .selectAll()
      .where('job_id', '=', jobId)
      .where('status', 'in', statuses)
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit)
      .execute();
  }

  /**
   * Marks pending items queued with their messages, in one statement of the sends' transaction;
   * how many were still pending (fewer than given: some were queued by someone else).
   */
  async markQueued(
    ex: Executor,
    jobId: string,
    rows: readonly { seq: number; cellId: string; sender: string; messageId: string; at: string }[],
  ): Promise<number> {
    if (rows.length === 0) return 0;
    const values = rows.map(
      (row) => sql`(cast(${row.seq} as integer), ${row.cellId}, ${row.sender}, ${row.messageId}, ${row.at})`,
    );
    const result = await sql<{ seq: number }>`
      with queued (seq, cell_id, sender, message_id, at) as (values ${sql.join(values)})
      update cycle_job_items set
        status = 'queued', cell_id = queued.cell_id, sender = queued.sender, message_id = queued.message_id,
        queued_at = queued.at, updated_at = queued.at
      from queued
      where cycle_job_items.job_id = ${jobId} and cycle_job_items.seq = queued.seq and cycle_job_items.status = 'pending'
      returning cycle_job_items.seq`.execute(ex);
    return result.rows.length;
  }

  /** Moves the items `seqs` that are in one of `from` to `status`. */
  async moveItems(
    ex: Executor,
    jobId: string,
    seqs: readonly number[],
    from: readonly ItemStatus[],
    status: ItemStatus,
    now: string,
    errorCode: string | null = null,
  ): Promise<void> {
    for (const chunk of chunks(seqs)) await this.move(ex, jobId, ['seq', chunk], from, status, now, errorCode);
  }

  /** Moves every item of the job in one of `from` to `status`. */
  async moveAll(ex: Executor, jobId: string, from: readonly ItemStatus[], status: ItemStatus, now: string) {
    await this.move(ex, jobId, null, from, status, now);
  }

  async messageIdsIn(ex: Executor, jobId: string, statuses: readonly ItemStatus[]): Promise<string[]> {
    const rows = await ex
      .selectFrom('cycle_job_items')
      .select('message_id')
      .where('job_id', '=', jobId)
      .where('status', 'in', statuses)
      .where('message_id', 'is not', null)
      .execute();
    return rows.map((row) => row.message_id as string);
  }

  async moveByMessage(
    ex: Executor,
    jobId: string,
    messageIds: readonly string[],
    from: readonly ItemStatus[],
    status: ItemStatus,
    now: string,
  ): Promise<void> {
    for (const chunk of chunks(messageIds)) await this.move(ex, jobId, ['message_id', chunk], from, status, now);
  }

  /** Moves the job's items in one of `from` (and among `among`'s values of its column, when given) to `status`. */
  private async move(
    ex: Executor,
    jobId: string,
    among: ['seq', number[]] | ['message_id', string[]] | null,
    from: readonly ItemStatus[],
    status: ItemStatus,
    now: string,
    errorCode: string | null = null,
  ): Promise<void> {
    let update = ex
      .updateTable('cycle_job_items')
      .set({ status, updated_at: now, ...(errorCode ? { error_code: errorCode } : {}) })
      .where('job_id', '=', jobId);
    if (among) update = update.where(among[0], 'in', among[1]);
    await update.where('status', 'in', from).execute();
  }

  /** Items of the job per sending cell (the job's share of each cell so far). */
  async loadPerCell(jobId: string): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('cycle_job_items')
      .select('cell_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('job_id', '=', jobId)
      .where('cell_id', 'is not', null)
      .groupBy('cell_id')
      .execute();
    return new Map(rows.map((row) => [row.cell_id as string, Number(row.n)]));
  }

  /** Items still open: in one of `statuses`, or `sent` since after `sentSince` (its delivery report may come). */
  async countOpen(jobId: string, statuses: readonly ItemStatus[], sentSince: string | null): Promise<number> {
    const row = await this.db
      .selectFrom('cycle_job_items')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('job_id', '=', jobId)
      .where((eb) => {
        const open = eb('status', 'in', statuses);
        return sentSince === null
          ? open
          : eb.or([open, eb.and([eb('status', '=', 'sent'), eb('updated_at', '>', sentSince)])]);
      })
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
