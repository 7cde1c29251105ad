// Agent-facing messaging: send, reply, cancel, read and list messages and conversations.
import type { Transaction } from 'kysely';
import { ApiError, orNotFound } from '../../lib/errors.ts';
import { listPage, type PageQuery } from '../../lib/pagination.ts';
import { isoAfter, type Clock } from '../../lib/clock.ts';
import { GroupCommit, Refused } from '../../db/group-commit.ts';
import { transact } from '../../db/transaction.ts';
import { idFloor, newId } from '../../lib/ids.ts';
import { recordOutcomes, type IdempotencyRecorder } from '../../operations/idempotency.ts';
import { requirePhone } from '../../lib/phone.ts';
import type { DB, Executor } from '../../db/schema.ts';
import { conversationKey, touchKey, type ConversationsRepository, type Touch } from './conversations-repository.ts';
import type { CellsPort, ChargesPort, DevicesPort, IgnoreListPort } from './ports.ts';
import type { SendingCell } from '../cells/service.ts';
import { Port } from '../../lib/ports.ts';
import type { MessageSearchFilter, MessagesRepository } from './repository.ts';
import type { MessagesTable, MessageStatus } from './tables.ts';
import { conversationView, messageView, newMessageRow, type MessageView } from './views.ts';
import type { CellWakeups, PublishingColumn } from './wakeups.ts';
import { paceOf, queueRoom, windowsAt, type Pace, type PhoneLimits } from './pace.ts';
import { requireSendAt, timingOf, type ScheduleInput } from './schedule.ts';
import { countBy, type StoredCaps } from '../../operations/stored-caps.ts';

/** A queued message nobody claims within this time fails with `expired`. */
export const QUEUE_TTL_MS = 60 * 60 * 1000;
/** How many messages GET /v1/conversations/between returns with the conversation. */
const BETWEEN_MESSAGES = 50;

export interface SendInput {
  to: string;
  body: string;
  media_urls?: string[];
}

/** The console's message search; `to` is exclusive. */
export interface MessageSearchQuery extends PageQuery {
  cellIds: readonly string[];
  participant?: string;
  text?: string;
  status?: MessageStatus;
  from?: Date;
  to?: Date;
}

export interface MessageListQuery extends PageQuery {
  direction?: MessagesTable['direction'];
  status?: MessageStatus;
  participant?: string;
  since?: string;
  /** Also messages from ignored participants (contract §5), left out by default. */
  include_ignored?: boolean;
}

/**
 * Runs in the transaction that queues the message; throwing refuses the send (and rolls it back).
 * Sends of one batch given the same hook run it once, with all their messages.
 */
export type SendHook = (tx: Executor, messages: MessageView[]) => Promise<void>;

/** A send, written with others of its batch (see GroupCommit), where its cell is checked too. */
interface SendUnit {
  organizationId: string;
  /** Without from_number and conversation_id, which the batch fills in. */
  message: MessagesTable;
  /** The id of the conversation, if the send starts one. */
  newConversationId: string;
  record?: IdempotencyRecorder;
  within?: SendHook;
  /** The send_at it asked for, if any; the cell's quiet hours may move it (or now) later. */
  sendAt: Date | null;
  /** send_now: quiet hours do not hold it. */
  sendNow: boolean;
}

const conversationOf = (unit: SendUnit): Touch => ({
  newId: unit.newConversationId,
  organizationId: unit.organizationId,
  cellId: unit.message.cell_id,
  participant: unit.message.to_number,
  messageId: unit.message.id,
  at: unit.message.created_at,
});

interface Deps {
  repo: MessagesRepository;
  conversations: ConversationsRepository;
  cells: CellsPort;
  devices: DevicesPort;
  clock: Clock;
  wakeups: CellWakeups;
  storedCaps: StoredCaps;
}

export class MessagesService {
  private readonly repo: MessagesRepository;
  private readonly conversations: ConversationsRepository;
  private readonly cells: CellsPort;
  private readonly devices: DevicesPort;
  private readonly clock: Clock;
  private readonly wakeups: CellWakeups;
  private readonly storedCaps: StoredCaps;
  /** Wired by the composition root: billing's charges, the pods module's ignore lists. */
  readonly ports = {
    charges: new Port<ChargesPort>('messages', 'charges'),
    ignores: new Port<IgnoreListPort>('messages', 'ignores'),
  };
  /** Concurrent sends commit together. */
  private readonly writes: GroupCommit<SendUnit, MessageView>;
  /** The pace of each send's answer, read in its transaction (paceOf). */
  private readonly paces = new WeakMap<MessageView, Pace>();

  constructor(deps: Deps) {
    this.repo = deps.repo;
    this.conversations = deps.conversations;
    this.cells = deps.cells;
    this.devices = deps.devices;
    this.clock = deps.clock;
    this.wakeups = deps.wakeups;
    this.storedCaps = deps.storedCaps;
    this.writes = new GroupCommit(deps.repo.db, (tx, units) => this.writeSends(tx, units));
  }

  /**
   * Queues an outbound message (the route answers 202); devices pick it up by long-poll.
   * `record` stores the idempotent response in the same transaction, which the send shares with
   * the others of its batch (one commit per batch).
   */
  async send(
    organizationId: string,
    cellId: string,
    input: SendInput,
    options: { replyTo?: string; record?: IdempotencyRecorder; within?: SendHook; schedule?: ScheduleInput } = {},
  ) {
    const to = requirePhone('to', input.to);
    const now = this.clock.now();
    const sendAt = options.schedule?.send_at === undefined ? null : requireSendAt(options.schedule.send_at, now);
    const message = newMessageRow({
      id: newId('msg', this.clock, now),
      organization_id: organizationId,
      cell_id: cellId,
      conversation_id: '',
      direction: 'outbound',
      from_number: '',
      to_number: to,
      body: input.body,
      mediaUrls: input.media_urls,
      status: 'queued',
      reply_to_message_id: options.replyTo ?? null,
      expires_at: new Date(now.getTime() + QUEUE_TTL_MS).toISOString(),
      created_at: now.toISOString(),
    });
    const view = await this.writes.run({
      organizationId,
      message,
      newConversationId: newId('conv', this.clock, now),
      record: options.record,
      within: options.within,
      sendAt,
      sendNow: options.schedule?.send_now === true,
    });
    // The other processes were told in the transaction (writeSends).
    if (view.status === 'queued') this.wakeups.here(cellId);
    return view;
  }

  /**
   * Writes a batch of sends: billing reads the accounts, then cells, opt-outs, the charges,
   * conversations, messages and idempotency keys, one statement each, then the pace (one per cell)
   * and, on PostgreSQL, the other processes' wake-up (one NOTIFY statement). A send is refused alone:
   * its organization cannot pay (402), its cell cannot send (404, 409 cell_not_active, or
   * 409 mms_unsupported for media its phone cannot send), its
   * recipient texted STOP (409 recipient_opted_out) or the balance does not cover it (402).
   */
  private async writeSends(tx: Transaction<DB>, units: SendUnit[]): Promise<(MessageView | Refused)[]> {
    const refusals = new Map<number, ApiError>();
    const charges = await this.ports.charges.value.sends(
      tx,
      units.map((unit) => unit.organizationId),
    );
    const payable = units.flatMap((unit, i) => {
      const refusal = charges.refusal(unit.organizationId);
      if (refusal) refusals.set(i, refusal);
      return refusal ? [] : [{ i, unit }];
    });
    const cells = await this.cells.sendingCells(
      tx,
      payable.map(({ unit }) => ({ organizationId: unit.organizationId, cellId: unit.message.cell_id })),
    );
    const candidates = payable.flatMap(({ i, unit }, k) => {
      const cell = cells[k];
      if (cell instanceof ApiError) {
        refusals.set(i, cell);
        return [];
      }
      // Up front, before anything is queued or charged: the phone would only fail it.
      if (!cell.mms_send && unit.message.media_urls !== '[]') {
        refusals.set(
          i,
          new ApiError(
            'mms_unsupported',
            'The phone carrying this cell cannot send MMS (its capabilities say mms_send: false); send without media_urls.',
          ),
        );
        return [];
      }
      // Scheduled for send_at, or for the end of the quiet hours it would go out in.
      const timing = timingOf(new Date(unit.message.created_at), unit.sendAt, cell.quiet_hours, unit.sendNow);
      const expires_at = timing.status === 'queued' ? unit.message.expires_at : null;
      return [
        {
          i,
          phone: cell.phone,
          unit: { ...unit, message: { ...unit.message, ...timing, expires_at, from_number: cell.phone_number } },
        },
      ];
    });
    const pairs = new Map(candidates.map(({ unit }) => [touchKey(conversationOf(unit)), conversationOf(unit)]));
    const stops = pairs.size > 0 ? await this.repo.optedOutAmong(tx, [...pairs.values()]) : [];
    const optedOut = new Set(stops.map((row) => conversationKey(row.cell_id, row.participant)));
    const reachable = candidates.filter(({ i, unit }) => {
      if (!optedOut.has(touchKey(conversationOf(unit)))) return true;
      const to = unit.message.to_number;
      refusals.set(
        i,
        new ApiError(
          'recipient_opted_out',
          `${to} texted STOP to this cell; they must text START before you can message them again.`,
        ),
      );
      return false;
    });
    // Charged when queued (contract §12): a scheduled send is charged when it goes out.
    const now = reachable.filter(({ unit }) => unit.message.status === 'queued');
    const bills = now.length > 0 ? await charges.charge(now.map(({ unit }) => unit.message)) : [];
    now.forEach(({ i }, k) => {
      const refusal = bills[k];
      if (refusal) refusals.set(i, refusal);
    });
    // A scheduled send takes a place among the organization's scheduled messages (stored-caps): 409 when none is left.
    for (const { i, unit } of reachable)
      if (
        unit.message.status === 'scheduled' &&
        !(await this.storedCaps.tryTake(tx, 'scheduled_messages', unit.organizationId))
      )
        refusals.set(i, this.storedCaps.refusal('scheduled_messages'));
    const accepted = reachable.filter(({ i }) => !refusals.has(i));
    const views =
      accepted.length > 0
        ? await this.writeAccepted(
            tx,
            accepted.map(({ unit }) => unit),
          )
        : [];
    const queuedOn = [...new Set(views.flatMap((view) => (view.status === 'queued' ? [view.cell_id] : [])))];
    // The other processes' wake-up rides on the pace read when there is one (one statement fewer).
    const carried = await this.readPaces(tx, accepted, views, this.wakeups.publishingColumn(queuedOn));
    if (!carried) await this.wakeups.publishWithin(tx, queuedOn);
    const written = new Map(accepted.map(({ i }, k) => [i, views[k]]));
    return units.map((_unit, i) => {
      const refusal = refusals.get(i);
      return refusal ? new Refused(refusal) : (written.get(i) as MessageView);
    });
  }

  private async writeAccepted(tx: Transaction<DB>, units: SendUnit[]): Promise<MessageView[]> {
    const conversationIds = await this.conversations.touchAll(tx, units.map(conversationOf));
    const rows = units.map((unit) => ({
      ...unit.message,
      conversation_id: conversationIds.get(touchKey(conversationOf(unit))) as string,
    }));
    await this.repo.insertAll(tx, rows);
    const views = rows.map(messageView);
    // Sends of a batch that share a hook run it once, with all their messages.
    const hooks = new Map<SendHook, MessageView[]>();
    units.forEach((unit, i) => unit.within && hooks.set(unit.within, [...(hooks.get(unit.within) ?? []), views[i]]));
    for (const [hook, messages] of hooks) await hook(tx, messages);
    await recordOutcomes(
      tx,
      units.flatMap((unit, i) => (unit.record ? [unit.record(views[i])] : [])),
    );
    return views;
  }

  /** Sends to the other party of an earlier message of the cell. */
  async reply(
    organizationId: string,
    cellId: string,
    messageId: string,
    input: { body: string; media_urls?: string[] } & ScheduleInput,
    record?: IdempotencyRecorder,
  ) {
    const original = await this.findMessage(organizationId, cellId, messageId);
    const counterpart = original.direction === 'inbound' ? original.from_number : original.to_number;
    const { send_at, send_now, ...text } = input;
    return this.send(
      organizationId,
      cellId,
      { ...text, to: counterpart },
      { replyTo: original.id, record, schedule: { send_at, send_now } },
    );
  }

  /**
   * The pace of each accepted send's answer (pace.ts), read in the batch's transaction after its
   * messages are queued: one statement per cell of the batch, whatever the depth of its queue.
   * The answer then needs nothing after the commit (issue 33 §11). The first read also selects
   * `alongside` (the batch's wake-up), if given: true when one did.
   */
  private async readPaces(
    tx: Executor,
    accepted: readonly { unit: SendUnit; phone: SendingCell['phone'] }[],
    views: readonly MessageView[],
    alongside: PublishingColumn | null,
  ): Promise<boolean> {
    const now = this.clock.now();
    const byCell = new Map<string, Pace>();
    let carry = alongside ?? undefined;
    for (const [k, { unit, phone }] of accepted.entries()) {
      if (!phone || phone.sendRatePerMinute <= 0) continue;
      const cellId = unit.message.cell_id;
      let pace = byCell.get(cellId);
      if (!pace) {
        byCell.set(cellId, (pace = await this.paceNow(tx, cellId, phone, now, carry)));
        carry = undefined;
      }
      this.paces.set(views[k], pace);
    }
    return alongside !== null && carry === undefined;
  }

  private async paceNow(
    ex: Executor,
    cellId: string,
    phone: NonNullable<SendingCell['phone']>,
    now: Date,
    alongside?: PublishingColumn,
  ) {
    // The queue counted over at most a minute's worth of messages: enough to tell what remains.
    const { claimed, queued } = await this.repo.pace(
      ex,
      { cellId, deviceId: phone.id, since: windowsAt(now), queuedCap: phone.sendRatePerMinute },
      alongside,
    );
    return paceOf(phone, claimed, queued, now);
  }

  /** The pace (RateLimit-*) of this send's answer, as its transaction read it; null without a phone. */
  paceOf(message: MessageView): Pace | null {
    return this.paces.get(message) ?? null;
  }

  /** The cell's pace now (a pod's broadcast shows its cells' together); null for a cell without a phone. */
  async pace(cellId: string): Promise<Pace | null> {
    const phone = await this.devices.phoneOfCell(cellId);
    if (!phone || phone.send_rate_per_minute <= 0) return null;
    const limits = {
      id: phone.id,
      sendRatePerMinute: phone.send_rate_per_minute,
      dailySendLimit: phone.daily_send_limit,
    };
    return this.paceNow(this.repo.db, cellId, limits, this.clock.now());
  }

  /** Counts for GET /v1/agent/status. */
  healthCounts(organizationId: string) {
    return this.repo.healthCounts(organizationId, isoAfter(this.clock, -24 * 60 * 60 * 1000));
  }

  async cancel(organizationId: string, cellId: string, messageId: string) {
    await this.cells.getOwned(organizationId, cellId);
    const canceled = await transact(this.repo.db, async (tx) => {
      const { row, wasScheduled } = await this.repo.cancel(tx, cellId, messageId, this.clock.now().toISOString());
      if (wasScheduled) await this.storedCaps.release(tx, 'scheduled_messages', organizationId);
      if (row) await this.ports.charges.value.refund(tx, [row.id]);
      return row;
    });
    if (canceled) return messageView(canceled);
    const message = orNotFound(await this.repo.findInCell(cellId, messageId), 'message');
    throw new ApiError('conflict', `Only scheduled or queued messages can be canceled; this one is ${message.status}.`);
  }

  async get(organizationId: string, cellId: string, messageId: string) {
    return messageView(await this.findMessage(organizationId, cellId, messageId));
  }

  /** The organization's messages of the cell among `messageIds` (unknown ids are left out): the console's conversation previews. */
  async getMany(organizationId: string, cellId: string, messageIds: readonly string[]): Promise<MessageView[]> {
    return (await this.repo.findManyInCell(organizationId, cellId, messageIds)).map(messageView);
  }

  async list(organizationId: string, cellId: string, query: MessageListQuery) {
    const cell = await this.cells.getOwned(organizationId, cellId);
    let conversationId: string | undefined;
    if (query.participant !== undefined) {
      const conversation = await this.conversations.find(cell.id, requirePhone('participant', query.participant));
      if (!conversation) return { messages: [], next_cursor: null };
      conversationId = conversation.id;
    }
    return this.listPage(cell.id, { ...query, conversationId });
  }

  async listConversationMessages(
    organizationId: string,
    cellId: string,
    conversationId: string,
    query: PageQuery & { include_ignored?: boolean },
  ) {
    const cell = await this.cells.getOwned(organizationId, cellId);
    const conversation = orNotFound(await this.conversations.findInCell(cell.id, conversationId), 'conversation');
    return this.listPage(cell.id, { ...query, conversationId: conversation.id });
  }

  /** The conversation with `participantInput` and its latest messages (an ignored party's left out unless asked). */
  async between(organizationId: string, cellId: string, participantInput: string, includeIgnored = false) {
    const participant = requirePhone('participant', participantInput);
    const cell = await this.cells.getOwned(organizationId, cellId);
    const conversation = orNotFound(await this.conversations.find(cell.id, participant), 'conversation');
    const rows = await this.repo.list({
      cellId: cell.id,
      conversationId: conversation.id,
      excludeIgnored: !includeIgnored,
      limit: BETWEEN_MESSAGES,
    });
    return { conversation: conversationView(conversation), messages: rows.map(messageView) };
  }

  async listConversations(organizationId: string, cellId: string, query: PageQuery & { include_ignored?: boolean }) {
    const cell = await this.cells.getOwned(organizationId, cellId);
    // Conversations with a participant ignored on the cell (or its pod) are left out by default.
    const hidden = query.include_ignored
      ? []
      : await this.ports.ignores.value.ignoredParticipants(organizationId, cell.id);
    const { items, next_cursor } = await listPage(
      query,
      (key, count) =>
        this.conversations.list(cell.id, key ? { at: String(key[0]), id: String(key[1]) } : null, count, hidden),
      (row) => [row.last_message_at, row.id],
      2,
    );
    return { conversations: items.map(conversationView), next_cursor };
  }

  /**
   * The console's search over the given cells of the organization (the caller's own list of
   * them), newest first: the participant's conversations, a text substring, a status, and a range
   * of creation times [from, to). Ids begin with their creation time, so the range is an id range.
   */
  async search(organizationId: string, query: MessageSearchQuery) {
    const { items, next_cursor } = await listPage(
      query,
      (key, count) =>
        this.repo.search(this.searchFilter(organizationId, query, key ? String(key[0]) : undefined, count)),
      (row) => [row.id],
    );
    return { messages: items.map(messageView), next_cursor };
  }

  /** Every match of the search, page after page (the CSV export streams these; never all in memory). */
  async *searchPages(organizationId: string, query: Omit<MessageSearchQuery, 'cursor'>, pageSize = 500) {
    let before: string | undefined;
    for (;;) {
      const rows = await this.repo.search(this.searchFilter(organizationId, query, before, pageSize));
      if (rows.length > 0) yield rows.map(messageView);
      if (rows.length < pageSize) return;
      before = rows[rows.length - 1].id;
    }
  }

  private searchFilter(
    organizationId: string,
    query: Omit<MessageSearchQuery, 'cursor' | 'limit'>,
    after: string | undefined,
    limit: number,
  ): MessageSearchFilter {
    const until = query.to ? idFloor('msg', query.to.getTime()) : undefined;
    return {
      organizationId,
      cellIds: query.cellIds,
      participant: query.participant,
      text: query.text,
      status: query.status,
      fromId: query.from ? idFloor('msg', query.from.getTime()) : undefined,
      // The earlier of the range's end and the last page's end (ids of one prefix sort by time).
      beforeId: after !== undefined && until !== undefined ? (after < until ? after : until) : (after ?? until),
      limit,
    };
  }

  // --- For the pods module (drafts, cycle jobs) ---

  /** Conversations and opt-outs between these cells and these participants (one statement). */
  async recipientsAmong(cellIds: readonly string[], participants: readonly string[]) {
    if (cellIds.length === 0 || participants.length === 0) return { conversations: [], optOuts: [] };
    return this.repo.recipientsAmong(cellIds, participants);
  }

  /** The current status of each of these messages that exists. */
  statusesOf(messageIds: readonly string[]) {
    return this.repo.statusesOf(messageIds);
  }

  /**
   * How many more segments may be queued on the cell now (pace.ts queueRoom): `minutes` of its
   * phone's rate, within its day's room, less the queue. The send's pace statement reads it, the
   * queue summed over at most that many messages (each at least a segment, so a deeper queue
   * leaves no room either): bounded, whatever the queue's depth. `deviceId` null: no phone
   * claims for the cell now, so nothing was handed out.
   */
  async queueRoom(cellId: string, phone: PhoneLimits & { deviceId: string | null }, minutes: number) {
    const { claimed, queued } = await this.repo.pace(this.repo.db, {
      cellId,
      deviceId: phone.deviceId,
      since: windowsAt(this.clock.now()),
      queuedCap: phone.sendRatePerMinute * minutes,
    });
    return queueRoom(phone, claimed, queued, minutes);
  }

  /** Whether the cell received a text from `from` created at or after `since`. */
  async receivedSince(cellId: string, from: string, since: string): Promise<boolean> {
    const conversation = await this.conversations.find(cellId, from);
    if (!conversation) return false;
    const sinceId = idFloor('msg', new Date(since).getTime());
    const rows = await this.repo.list({
      cellId,
      conversationId: conversation.id,
      direction: 'inbound',
      sinceId,
      since,
      limit: 1,
    });
    return rows.length > 0;
  }

  /** Cancels those of these messages still queued, in the caller's transaction; their ids. */
  async cancelQueuedAmong(ex: Executor, messageIds: readonly string[]) {
    const { canceled, scheduled } = await this.repo.cancelAmong(ex, messageIds, this.clock.now().toISOString());
    await this.storedCaps.releaseAll(
      ex,
      'scheduled_messages',
      countBy(scheduled, (row) => row.organization_id),
    );
    await this.ports.charges.value.refund(ex, canceled);
    return canceled;
  }

  private async findMessage(organizationId: string, cellId: string, messageId: string) {
    const cell = await this.cells.getOwned(organizationId, cellId);
    return orNotFound(await this.repo.findInCell(cell.id, messageId), 'message');
  }

  private async listPage(cellId: string, query: Omit<MessageListQuery, 'participant'> & { conversationId?: string }) {
    const since = query.since === undefined ? undefined : new Date(query.since);
    const { items, next_cursor } = await listPage(
      query,
      (key, count) =>
        this.repo.list({
          cellId,
          conversationId: query.conversationId,
          direction: query.direction,
          status: query.status,
          // Ids start with their creation time, so `since` becomes a lower bound on the index.
          sinceId: since ? idFloor('msg', since.getTime()) : undefined,
          since: since?.toISOString(),
          beforeId: key ? String(key[0]) : undefined,
          excludeIgnored: !query.include_ignored,
          limit: count,
        }),
      (row) => [row.id],
    );
    return { messages: items.map(messageView), next_cursor };
  }
}
