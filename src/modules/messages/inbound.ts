// Inbound texts (contract §4): the device uploads what its phone received; the message is filed
// in the conversation with the sender, STOP/START words record or clear an opt-out, and
// message.received goes out. A one-time code in the text is stored with it (contract §12) and
// wakes the cell's code waiters. Uploads are idempotent on the phone's own id for the text.
import { ApiError } from '../../lib/errors.ts';
import type { Executor } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { requirePhone } from '../../lib/phone.ts';
import type { EventsService } from '../events/service.ts';
import type { ConversationsRepository } from './conversations-repository.ts';
import { optOutKeyword } from './lifecycle.ts';
import { emitMessageEvent } from './message-events.ts';
import type { DeviceAssignment, DevicesPort, IgnoreListPort } from './ports.ts';
import { Port } from '../../lib/ports.ts';
import type { MessagesRepository } from './repository.ts';
import type { MessagesTable } from './tables.ts';
import { messageView, newMessageRow } from './views.ts';
import { transact } from '../../db/transaction.ts';
import { detectCode } from '../codes/detector.ts';
import type { CellWakeups } from './wakeups.ts';

export interface InboundUpload {
  device_message_id: string;
  from: string;
  body: string;
  media_urls?: string[];
  received_at: string;
}

interface Deps {
  repo: MessagesRepository;
  conversations: ConversationsRepository;
  devices: DevicesPort;
  events: EventsService;
  clock: Clock;
  /** Woken (after the commit) for each stored inbound message that carries a code. */
  codeArrivals: CellWakeups;
}

/** Thrown inside the inbound transaction to roll it back when the upload is a duplicate. */
class DuplicateUpload extends Error {}

export class InboundService {
  private readonly deps: Deps;
  /** Wired by the composition root: the pods module's ignore lists. */
  readonly ports = { ignores: new Port<IgnoreListPort>('inbound', 'ignores') };

  constructor(deps: Deps) {
    this.deps = deps;
  }

  /**
   * Stores a text the device's phone received, on the cell of SIM line `simNumber` where the phone
   * says which (contract §13) and on its first cell otherwise; `created` is false for a repeated upload.
   */
  async receive(
    deviceId: string,
    input: InboundUpload,
    simNumber: number | null = null,
  ): Promise<{ created: boolean; message: ReturnType<typeof messageView> }> {
    const from = requirePhone('from', input.from);
    if (input.body === '' && (input.media_urls ?? []).length === 0) {
      throw new ApiError('invalid_request', 'An inbound message needs a body or media.', {
        errors: [{ field: 'body', code: 'too_short', message: 'body may be empty only when media_urls has items.' }],
      });
    }
    const assignment = onLine(await this.deps.devices.assignment(deviceId), simNumber);
    if (!assignment)
      throw new ApiError('conflict', 'This device carries no cell, so it cannot receive messages for one.');
    const existing = await this.deps.repo.findInbound(this.deps.repo.db, assignment.cellId, input.device_message_id);
    if (existing) return { created: false, message: messageView(existing) };
    try {
      const message = await transact(this.deps.repo.db, (tx) => this.storeInbound(tx, assignment, from, input));
      if (message.code !== null && message.ignored === 0) this.deps.codeArrivals.notify(message.cell_id);
      return { created: true, message: messageView(message) };
    } catch (error) {
      if (!(error instanceof DuplicateUpload)) throw error;
      const first = await this.deps.repo.findInbound(this.deps.repo.db, assignment.cellId, input.device_message_id);
      if (!first) throw error;
      return { created: false, message: messageView(first) };
    }
  }

  private async storeInbound(
    tx: Executor,
    assignment: DeviceAssignment,
    from: string,
    input: InboundUpload,
  ): Promise<MessagesTable> {
    const now = this.deps.clock.now();
    const at = now.toISOString();
    const id = newId('msg', this.deps.clock, now);
    const found = detectCode(input.body);
    const ignored = await this.ports.ignores.value.isIgnored(tx, assignment.organizationId, assignment.cellId, from);
    const conversationId = await this.deps.conversations.touch(tx, {
      newId: newId('conv', this.deps.clock, now),
      organizationId: assignment.organizationId,
      cellId: assignment.cellId,
      participant: from,
      messageId: id,
      at,
    });
    const message = newMessageRow({
      id,
      organization_id: assignment.organizationId,
      cell_id: assignment.cellId,
      conversation_id: conversationId,
      direction: 'inbound',
      from_number: from,
      to_number: assignment.phoneNumber,
      body: input.body,
      mediaUrls: input.media_urls,
      status: 'received',
      device_id: assignment.deviceId,
      device_message_id: input.device_message_id,
      received_at: input.received_at,
      ignored: ignored ? 1 : 0,
      code: found?.code ?? null,
      code_service: found?.service ?? null,
      created_at: at,
    });
    // A concurrent identical upload won the unique index: roll back our conversation touch too.
    if (!(await this.deps.repo.insertInbound(tx, message))) throw new DuplicateUpload();
    const keyword = optOutKeyword(input.body);
    if (keyword === 'stop') await this.deps.repo.optOut(tx, assignment.cellId, from, at);
    if (keyword === 'start') await this.deps.repo.optIn(tx, assignment.cellId, from);
    // An ignored participant's text is kept (and still opts out), but reported to nobody.
    if (!ignored) await emitMessageEvent(this.deps.events, tx, message, 'message.received');
    return message;
  }
}

/** The assignment narrowed to the cell of SIM line `simNumber` (null: the first cell); null when that line carries none. */
function onLine(assignment: DeviceAssignment | null, simNumber: number | null): DeviceAssignment | null {
  if (!assignment || simNumber === null) return assignment;
  const line = assignment.lines.find((candidate) => candidate.simNumber === simNumber);
  if (!line) return assignment.lines.length === 1 && assignment.lines[0].simNumber === null ? assignment : null;
  return {
    ...assignment,
    cellId: line.cellId,
    organizationId: line.organizationId,
    phoneNumber: line.phoneNumber,
    lines: [line],
  };
}
