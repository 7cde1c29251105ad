// SQL for messages, opt-outs and device event dedup. Every hot query is a range scan of one
// index: lists on (cell_id, id) or (conversation_id, id), claims on (cell_id, status, id).
import { sql, type Kysely, type UpdateQueryBuilder, type UpdateResult } from 'kysely';
import { isPostgres } from '../../db/migrations/dialect.ts';
import { prepared, preparedLists, preparedRows } from '../../db/prepared.ts';
import type { DB, Executor } from '../../db/schema.ts';
import { CANCELABLE_STATUSES, OPEN_STATUSES, type MessageStatus } from './lifecycle.ts';
import type { MessagesTable } from './tables.ts';
import type { PublishingColumn } from './wakeups.ts';

export interface MessageListFilter {
  cellId: string;
  conversationId?: string;
  direction?: MessagesTable['direction'];
  status?: MessageStatus;
  /** Lowest id created at or after `since` (ids are time-sortable). */
  sinceId?: string;
  since?: string;
  /** Exclusive upper bound: the last id of the previous page. */
  beforeId?: string;
  /** Leave out inbound messages from ignored participants. */
  excludeIgnored?: boolean;
  limit: number;
}

/** The console's message search (organization-wide, newest first); every bound is optional. */
export interface MessageSearchFilter {
  organizationId: string;
  /** The cells searched (the organization's, or one of them). */
  cellIds: readonly string[];
  /** The other party (E.164): through the conversations of these cells with them. */
  participant?: string;
  /** A substring of the text, without regard to case. */
  text?: string;
  status?: MessageStatus;
  /** Inclusive lower bound on ids: the id floor of the first instant searched. */
  fromId?: string;
  /** Exclusive upper bound on ids: the id floor after the last instant, or the previous page's last id. */
  beforeId?: string;
  limit: number;
}

/** A LIKE pattern matching `text` anywhere, its own % _ and \\ taken literally (ESCAPE '\\'). */
const containsPattern = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

type Failure = { code: string; message: string };

// Every column, checked by the compiler: a column added to MessagesTable must be added here.
const COLUMNS: Record<keyof MessagesTable, true> = {
  id: true,
  organization_id: true,
  cell_id: true,
  conversation_id: true,
  direction: true,
  from_number: true,
  to_number: true,
  body: true,
  media_urls: true,
  status: true,
  segments: true,
  error_code: true,
  error_message: true,
  reply_to_message_id: true,
  ignored: true,
  device_id: true,
  lease_expires_at: true,
  attempts: true,
  claimed_at: true,
  expires_at: true,
  device_message_id: true,
  created_at: true,
  updated_at: true,
  sent_at: true,
  delivered_at: true,
  received_at: true,
  failed_at: true,
  code: true,
  code_service: true,
  send_at: true,
  schedule_reason: true,
};
const MESSAGE_COLUMNS = Object.keys(COLUMNS) as (keyof MessagesTable)[];

// Literal statuses, not parameters: the planners can use the partial indexes of 0003, and SQLite
// plans the statement once (it plans again on every run where a partial index hangs on a bound status).
const SENDING = sql.lit<MessageStatus>('sending');
const QUEUED = sql.lit<MessageStatus>('queued');
const SCHEDULED = sql.lit<MessageStatus>('scheduled');
type MessagesUpdate = UpdateQueryBuilder<DB, 'messages', 'messages', UpdateResult>;

const insertMessages = preparedRows((ex, rows: MessagesTable[]) =>
  ex
    .insertInto('messages')
    .values(
      rows.map(
        (row) => Object.fromEntries(MESSAGE_COLUMNS.map((column) => [column, row[column]])) as unknown as MessagesTable,
      ),
    ),
);
const findOptOuts = preparedRows((ex, pairs: { cellId: string; participant: string }[]) =>
  ex
    .selectFrom('opt_outs')
    .select(['cell_id', 'participant'])
    .where((eb) =>
      eb.or(pairs.map((pair) => eb.and([eb('cell_id', '=', pair.cellId), eb('participant', '=', pair.participant)]))),
    ),
);

// Run for every batch of pod draft sends: the conversations (kind 'c') and opt-outs (kind 'o')
// between these cells and participants, in one statement.
const findRecipientsAmong = preparedLists((ex, p: { cellIds: readonly string[]; participants: readonly string[] }) =>
  ex
    .selectFrom('conversations')
    .select([sql<'c' | 'o'>`'c'`.as('kind'), 'cell_id', 'participant', 'last_message_at'])
    .where('cell_id', 'in', p.cellIds)
    .where('participant', 'in', p.participants)
    .unionAll(
      ex
        .selectFrom('opt_outs')
        .select([sql<'c' | 'o'>`'o'`.as('kind'), 'cell_id', 'participant', sql<string>`null`.as('last_message_at')])
        .where('cell_id', 'in', p.cellIds)
        .where('participant', 'in', p.participants),
    ),
);

// The statements of every claim, report and read (the send path after the send's own transaction):
// built and compiled once (db/prepared.ts).
const findInCell = prepared((ex, p: { cellId: string; id: string }) =>
  ex.selectFrom('messages').selectAll().where('id', '=', p.id).where('cell_id', '=', p.cellId),
);
const findForUpdate = prepared((ex, p: { id: string }) => {
  const query = ex.selectFrom('messages').selectAll().where('id', '=', p.id);
  return isPostgres(ex) ? query.forUpdate() : query;
});
const firstClaimable = prepared((ex, p: { cellId: string; now: string }) =>
  ex
    .selectFrom('messages')
    .select('id')
    .where('cell_id', '=', p.cellId)
    .where('status', '=', QUEUED)
    .where('expires_at', '>', p.now)
    .limit(1),
);
// Both pacing windows in one range scan of the phone's claims of the day on the (device_id,
// claimed_at, segments) index: each window's segments and oldest claim. Planned for its values each
// run (a plan for any phone and window may read a phone's whole history).
const claimWindows = (ex: Executor, p: { deviceId: string | null; daySince: string; minuteSince: string }) =>
  ex
    .selectFrom('messages')
    .where('device_id', '=', p.deviceId)
    .where('claimed_at', '>', p.daySince)
    .select((eb) => [
      sql<number | string | null>`sum(case when claimed_at > ${p.minuteSince} then segments else 0 end)`.as('minute'),
      sql<string | null>`min(case when claimed_at > ${p.minuteSince} then claimed_at end)`.as('minute_oldest'),
      eb.fn.sum<number | string | null>('segments').as('day'),
      eb.fn.min<string | null>('claimed_at').as('day_oldest'),
    ]);
const claimedSegments = prepared(claimWindows, { planEachRun: true });
// A claim's candidates: the first `count` queued messages of a cell in id (creation) order, either
// way, walking the (cell_id, status, id) index forwards or backwards.
const queuedIn = (direction: 'asc' | 'desc') =>
  prepared((ex, p: { cellId: string; now: string; count: number }) =>
    ex
      .selectFrom('messages')
      .select(['id', 'segments'])
      .where('cell_id', '=', p.cellId)
      .where('status', '=', QUEUED)
      .where('expires_at', '>', p.now)
      .orderBy('id', direction)
      .limit(p.count),
  );
const firstQueued = { fifo: queuedIn('asc'), lifo: queuedIn('desc') };
/** The order a claim hands queued messages out in: oldest first (the default), or newest first. */
export type ClaimOrder = keyof typeof firstQueued;
const recordDeviceEvent = prepared(
  (ex, row: { device_id: string; event_id: string; message_id: string; event: string; created_at: string }) =>
    ex
      .insertInto('device_events')
      .values({
        device_id: row.device_id,
        event_id: row.event_id,
        message_id: row.message_id,
        event: row.event,
        created_at: row.created_at,
      })
      .onConflict((oc) => oc.columns(['device_id', 'event_id']).doNothing()),
);
// The pace of a send's answer in one statement: the claim windows, and beside them the segments
// of the cell's oldest `queuedCap` queued messages: never more, however deep the queue (issue
// 36). The send's answer and the broadcast planner ask it; a null device (no phone claims for
// the cell) matches no claims.
interface PaceParams {
  cellId: string;
  deviceId: string | null;
  minuteSince: string;
  daySince: string;
  queuedCap: number;
}

const paceQuery = (ex: Executor, p: PaceParams) =>
  claimWindows(ex, p).select((eb) =>
    eb
      .selectFrom(
        eb
          .selectFrom('messages')
          .select('segments')
          .where('cell_id', '=', p.cellId)
          .where('status', '=', QUEUED)
          .orderBy('id')
          .limit(p.queuedCap)
          .as('ahead'),
      )
      .select((inner) => inner.fn.sum<number | string | null>('segments').as('n'))
      .as('queued'),
  );
// Planned for its values each run, as claimedSegments.
const paceOf = prepared(paceQuery, { planEachRun: true });
const preparedPace = (build: PublishingColumn['build']) =>
  prepared(
    (ex, p: PaceParams & { payloads: readonly string[] }) => paceQuery(ex, p).select(build(p.payloads).as('alongside')),
    { planEachRun: true },
  );

export class MessagesRepository {
  readonly db: Kysely<DB>;
  private readonly postgres: boolean;
  /** The pace read with each publishing column (one: the PostgreSQL wake-up's). */
  private readonly paceWith = new Map<PublishingColumn['build'], ReturnType<typeof preparedPace>>();

  constructor(db: Kysely<DB>) {
    this.db = db;
    this.postgres = isPostgres(db);
  }

  /** One statement for a batch of sends. */
  async insertAll(ex: Executor, rows: readonly MessagesTable[]): Promise<void> {
    await insertMessages(ex, rows);
  }

  /** Inserts an inbound message unless the device already uploaded it; true when inserted. */
  async insertInbound(ex: Executor, row: MessagesTable): Promise<boolean> {
    const result = await ex
      .insertInto('messages')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['cell_id', 'device_message_id']).where('device_message_id', 'is not', null).doNothing(),
      )
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  findInbound(ex: Executor, cellId: string, deviceMessageId: string) {
    return ex
      .selectFrom('messages')
      .selectAll()
      .where('cell_id', '=', cellId)
      .where('device_message_id', '=', deviceMessageId)
      .executeTakeFirst();
  }

  async findInCell(cellId: string, id: string) {
    return findInCell.first(this.db, { cellId, id });
  }

  /** The organization's messages of this cell among `ids` (the console's conversation previews). */
  findManyInCell(organizationId: string, cellId: string, ids: readonly string[]) {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('messages')
      .selectAll()
      .where('id', 'in', ids)
      .where('cell_id', '=', cellId)
      .where('organization_id', '=', organizationId)
      .execute();
  }

  /** The message, row-locked on PostgreSQL until the transaction ends. */
  findForUpdate(ex: Executor, id: string) {
    return findForUpdate.first(ex, { id });
  }

  list(filter: MessageListFilter) {
    let query = this.db.selectFrom('messages').selectAll();
    query = filter.conversationId
      ? query.where('conversation_id', '=', filter.conversationId)
      : query.where('cell_id', '=', filter.cellId);
    if (filter.conversationId) query = query.where('cell_id', '=', filter.cellId);
    if (filter.direction) query = query.where('direction', '=', filter.direction);
    if (filter.status) query = query.where('status', '=', filter.status);
    if (filter.sinceId) query = query.where('id', '>=', filter.sinceId);
    if (filter.since) query = query.where('created_at', '>=', filter.since);
    if (filter.beforeId) query = query.where('id', '<', filter.beforeId);
    if (filter.excludeIgnored) query = query.where('ignored', '=', 0);
    return query.orderBy('id', 'desc').limit(filter.limit).execute();
  }

  /**
   * The console's search: a range of the (cell_id, id) index per cell, the participant through
   * the conversations' (cell_id, participant) key; the text is a scan of what those bounds leave.
   */
  search(filter: MessageSearchFilter) {
    if (filter.cellIds.length === 0) return Promise.resolve([]);
    let query = this.db
      .selectFrom('messages')
      .selectAll()
      .where('organization_id', '=', filter.organizationId)
      .where('cell_id', 'in', filter.cellIds);
    if (filter.participant !== undefined) {
      const participant = filter.participant;
      query = query.where('conversation_id', 'in', (eb) =>
        eb
          .selectFrom('conversations')
          .select('id')
          .where('cell_id', 'in', filter.cellIds)
          .where('participant', '=', participant),
      );
    }
    if (filter.status) query = query.where('status', '=', filter.status);
    if (filter.text) query = query.where(sql<boolean>`lower(body) like ${containsPattern(filter.text)} escape '\\'`);
    if (filter.fromId) query = query.where('id', '>=', filter.fromId);
    if (filter.beforeId) query = query.where('id', '<', filter.beforeId);
    return query.orderBy('id', 'desc').limit(filter.limit).execute();
  }

  // --- for pods (drafts and cycle jobs) ---

  /** Conversations and opt-outs between these cells and these participants, in one statement. */
  async recipientsAmong(cellIds: readonly string[], participants: readonly string[]) {
    const conversations: { cell_id: string; participant: string; last_message_at: string }[] = [];
    const optOuts: { cell_id: string; participant: string }[] = [];
    for (const row of (await findRecipientsAmong(this.db, { cellIds, participants })).rows) {
      if (row.kind === 'c')
        conversations.push({
          cell_id: row.cell_id,
          participant: row.participant,
          last_message_at: row.last_message_at,
        });
      else optOuts.push({ cell_id: row.cell_id, participant: row.participant });
    }
    return { conversations, optOuts };
  }

  statusesOf(ids: readonly string[]) {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('messages').select(['id', 'status']).where('id', 'in', ids).execute();
  }

  /**
   * Cancels those of these messages that are scheduled or queued: their ids, and those that were
   * scheduled (their places among the organization's scheduled messages are given back).
   */
  async cancelAmong(ex: Executor, ids: readonly string[], now: string) {
    if (ids.length === 0) return { canceled: [], scheduled: [] };
    const cancel = (status: MessageStatus) =>
      ex
        .updateTable('messages')
        .set({ status: 'canceled', updated_at: now, expires_at: null })
        .where('id', 'in', ids)
        .where('status', '=', status)
        .returning(['id', 'organization_id'])
        .execute();
    const scheduled = await cancel('scheduled');
    const queued = await cancel('queued');
    return { canceled: [...scheduled, ...queued].map((row) => row.id), scheduled };
  }

  async update(ex: Executor, id: string, patch: Partial<MessagesTable>) {
    return ex.updateTable('messages').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  }

  /** Cancels the message while it is scheduled or queued: its row (if it was), and whether it was scheduled. */
  async cancel(ex: Executor, cellId: string, id: string, now: string) {
    const cancel = (status: MessageStatus) =>
      ex
        .updateTable('messages')
        .set({ status: 'canceled', updated_at: now, expires_at: null })
        .where('id', '=', id)
        .where('cell_id', '=', cellId)
        .where('status', '=', status)
        .returningAll()
        .executeTakeFirst();
    for (const status of CANCELABLE_STATUSES) {
      const row = await cancel(status);
      if (row) return { row, wasScheduled: status === 'scheduled' };
    }
    return { row: undefined, wasScheduled: false };
  }

  // --- opt-outs ---

  /** Which of the (cell, participant) pairs texted STOP, in one statement (for a batch of sends). */
  async optedOutAmong(
    ex: Executor,
    pairs: readonly { cellId: string; participant: string }[],
  ): Promise<{ cell_id: string; participant: string }[]> {
    return (await findOptOuts(ex, pairs)).rows;
  }

  async optOut(ex: Executor, cellId: string, participant: string, now: string): Promise<void> {
    await ex
      .insertInto('opt_outs')
      .values({ cell_id: cellId, participant, created_at: now })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  async optIn(ex: Executor, cellId: string, participant: string): Promise<void> {
    await ex.deleteFrom('opt_outs').where('cell_id', '=', cellId).where('participant', '=', participant).execute();
  }

  // --- device claims ---

  async hasClaimable(cellId: string, now: string): Promise<boolean> {
    return (await firstClaimable.first(this.db, { cellId, now })) !== undefined;
  }

  /** Serialises claims of one device across processes (PostgreSQL; SQLite transactions already are). */
  async lockDeviceClaims(ex: Executor, deviceId: string): Promise<void> {
    if (this.postgres)
      await sql`select pg_advisory_xact_lock(hashtextextended(${`claims:${deviceId}`}, 0))`.execute(ex);
  }

  /**
   * Messages of an organization's cells waiting or in flight, and failed among those created after
   * `sinceId` (ids sort by creation time). Reads ride the (cell_id, status, id) index.
   */
  async healthCounts(organizationId: string, failedSince: string) {
    const rows = await this.db
      .selectFrom('messages')
      .innerJoin('cells', 'cells.id', 'messages.cell_id')
      .select('messages.status')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('cells.organization_id', '=', organizationId)
      .where((eb) =>
        eb.or([
          eb('messages.status', 'in', OPEN_STATUSES),
          eb.and([eb('messages.status', '=', 'failed'), eb('messages.failed_at', '>=', failedSince)]),
        ]),
      )
      .groupBy('messages.status')
      .execute();
    const of = (status: string) => Number(rows.find((row) => row.status === status)?.n ?? 0);
    return { queued: of('queued'), sending: of('sending'), failed_24h: of('failed') };
  }

  /** SMS segments handed to the device (messages it still holds or settled) since each of two instants. */
  async segmentsClaimedSince(ex: Executor, deviceId: string, since: { minute: string; day: string }) {
    const row = await claimedSegments.first(ex, { deviceId, daySince: since.day, minuteSince: since.minute });
    return { minute: Number(row?.minute ?? 0), day: Number(row?.day ?? 0) };
  }

  /**
   * The cell's first `count` claimable messages with their segments (the pacing decides how many
   * go): the oldest first, or with `lifo` the newest first.
   */
  async firstQueued(ex: Executor, cellId: string, now: string, count: number, order: ClaimOrder) {
    return (await firstQueued[order].execute(ex, { cellId, now, count })).rows;
  }

  /**
   * Leases these messages to the device, those still queued, in one conditional update (a message
   * canceled or claimed since it was read is left out). Claims of one device are serialised by
   * lockDeviceClaims, and a cell has one device, so no other claim races for these rows.
   */
  async claimIds(
    ex: Executor,
    input: { ids: readonly string[]; deviceId: string; now: string; leaseExpiresAt: string },
  ) {
    const rows = await ex
      .updateTable('messages')
      .set((eb) => ({
        status: 'sending',
        device_id: input.deviceId,
        lease_expires_at: input.leaseExpiresAt,
        claimed_at: input.now,
        updated_at: input.now,
        attempts: eb('attempts', '+', 1),
      }))
      .where('id', 'in', input.ids)
      .where('status', '=', QUEUED)
      .returningAll()
      .execute();
    return rows.sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  // --- the pace of sends (RateLimit-* headers) ---

  /**
   * The segments handed to the phone since each window's start (and the oldest claim of each),
   * and the segments of the cell's oldest `queuedCap` queued messages.
   */
  async pace(
    ex: Executor,
    p: { cellId: string; deviceId: string | null; since: { minute: string; day: string }; queuedCap: number },
    /** A column run with the read, for its effect (the batch's wake-up NOTIFY: one statement fewer). */
    alongside?: PublishingColumn,
  ) {
    const params = {
      cellId: p.cellId,
      deviceId: p.deviceId,
      minuteSince: p.since.minute,
      daySince: p.since.day,
      queuedCap: p.queuedCap,
    };
    const row = alongside ? await this.paceAlongside(ex, params, alongside) : await paceOf.first(ex, params);
    return {
      claimed: {
        minute: Number(row?.minute ?? 0),
        day: Number(row?.day ?? 0),
        minuteOldest: row?.minute_oldest ?? null,
        dayOldest: row?.day_oldest ?? null,
      },
      queued: Number(row?.queued ?? 0),
    };
  }

  /** The pace read with a column run for its effect (built once per column, then run with its payloads). */
  private async paceAlongside(ex: Executor, params: PaceParams, alongside: PublishingColumn) {
    let query = this.paceWith.get(alongside.build);
    if (!query) this.paceWith.set(alongside.build, (query = preparedPace(alongside.build)));
    return query.first(ex, { ...params, payloads: alongside.payloads });
  }

  // --- scheduled sends ---

  /** Scheduled messages whose send_at has come, oldest first (locked, skipping locked ones, on PostgreSQL). */
  dueScheduled(ex: Executor, now: string, batch: number) {
    const query = ex
      .selectFrom('messages')
      .selectAll()
      .where('status', '=', SCHEDULED)
      .where('send_at', '<=', now)
      .orderBy('send_at')
      .orderBy('id')
      .limit(batch);
    return (this.postgres ? query.forUpdate().skipLocked() : query).execute();
  }

  /** Moves these scheduled messages to the queue; those moved. */
  async queueScheduled(ex: Executor, ids: readonly string[], now: string, expiresAt: string) {
    if (ids.length === 0) return [];
    return ex
      .updateTable('messages')
      .set({ status: 'queued', expires_at: expiresAt, updated_at: now })
      .where('id', 'in', ids)
      .where('status', '=', SCHEDULED)
      .returning(['id', 'cell_id'])
      .execute();
  }

  // --- device event dedup ---

  findDeviceEvent(ex: Executor, deviceId: string, eventId: string) {
    return ex
      .selectFrom('device_events')
      .selectAll()
      .where('device_id', '=', deviceId)
      .where('event_id', '=', eventId)
      .executeTakeFirst();
  }

  /** Records a device's event id; false when the device already sent it. */
  async recordDeviceEvent(
    ex: Executor,
    row: { device_id: string; event_id: string; message_id: string; event: string; created_at: string },
  ): Promise<boolean> {
    const result = await recordDeviceEvent.execute(ex, row);
    return Number(result.numAffectedRows ?? 0) === 1;
  }

  // --- lease and queue expiry (worker) ---

  /** Messages whose lease ran out, with the device that held it (read before they are re-queued or failed). */
  expiredLeaseHolders(now: string, batch: number) {
    return this.db
      .selectFrom('messages')
      .select(['id', 'device_id', 'segments'])
      .where('status', '=', SENDING)
      .where('lease_expires_at', '<=', now)
      .limit(batch)
      .execute();
  }

  /** Re-queues messages whose lease ran out with attempts left; their ids and cells. */
  async requeueExpiredLeases(
    ex: Executor,
    input: { now: string; expiresAt: string; maxAttempts: number; batch: number },
  ): Promise<{ id: string; cell_id: string }[]> {
    const rows = await ex
      .updateTable('messages')
      .set({
        status: 'queued',
        device_id: null,
        lease_expires_at: null,
        expires_at: input.expiresAt,
        updated_at: input.now,
      })
      .where('id', 'in', this.expiredLeases(ex, input.now, input.batch).where('attempts', '<', input.maxAttempts))
      .where('status', '=', SENDING)
      .where('lease_expires_at', '<=', input.now)
      .where('attempts', '<', input.maxAttempts)
      .returning(['id', 'cell_id'])
      .execute();
    return rows;
  }

  failExhaustedLeases(ex: Executor, input: { now: string; maxAttempts: number; batch: number; error: Failure }) {
    return this.fail(ex, input.now, input.error, (q) =>
      q
        .where('id', 'in', this.expiredLeases(ex, input.now, input.batch).where('attempts', '>=', input.maxAttempts))
        .where('status', '=', SENDING)
        .where('lease_expires_at', '<=', input.now)
        .where('attempts', '>=', input.maxAttempts),
    );
  }

  failUnclaimed(ex: Executor, input: { now: string; batch: number; error: Failure }) {
    const stale = ex
      .selectFrom('messages')
      .select('id')
      .where('status', '=', QUEUED)
      .where('expires_at', '<=', input.now)
      .limit(input.batch);
    return this.fail(ex, input.now, input.error, (q) =>
      q.where('id', 'in', stale).where('status', '=', QUEUED).where('expires_at', '<=', input.now),
    );
  }

  /** Fails every message of a cell with one of these statuses (the cell is being released). */
  failOpen(ex: Executor, cellId: string, statuses: readonly MessageStatus[], now: string, error: Failure) {
    return this.fail(ex, now, error, (q) => q.where('cell_id', '=', cellId).where('status', 'in', statuses));
  }

  private expiredLeases(ex: Executor, now: string, batch: number) {
    return ex
      .selectFrom('messages')
      .select('id')
      .where('status', '=', SENDING)
      .where('lease_expires_at', '<=', now)
      .limit(batch);
  }

  private fail(ex: Executor, now: string, error: Failure, scope: (query: MessagesUpdate) => MessagesUpdate) {
    const update = ex.updateTable('messages').set({
      status: 'failed',
      error_code: error.code,
      error_message: error.message,
      lease_expires_at: null,
      expires_at: null,
      updated_at: now,
      failed_at: now,
    });
    return scope(update).returningAll().execute();
  }
}
