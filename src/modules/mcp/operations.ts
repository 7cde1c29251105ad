// The waits (contract §10): operations of their own, which only MCP binds (their texts are the
// tools'). They subscribe to the event feed, look once, then wait (./waits.ts), holding one of the
// organization's wait slots.
import { Type } from 'typebox';
import type { ConnectionCap } from '../../http/connection-caps.ts';
import { IdField as id, Nullable } from '../../http/schemas.ts';
import type { Clock } from '../../lib/clock.ts';
import { ApiError } from '../../lib/errors.ts';
import { requirePhone } from '../../lib/phone.ts';
import { defineOperation } from '../../operations/operation.ts';
import type { CellsService } from '../cells/service.ts';
import { Code } from '../codes/schemas.ts';
import type { CodesService } from '../codes/service.ts';
import type { EventsService } from '../events/service.ts';
import { PhoneInput } from '../messages/schemas.ts';
import type { MessagesService } from '../messages/service.ts';
import { Message, type MessageView } from '../messages/views.ts';
import { boundTime, deliveryWaitEnd, sinceBound, waitForEvent, type EventData, type WaitSpec } from './waits.ts';

const LIST_PAGE = 200;

/** Where a wait starts: whatever next_since a wait answered is taken back. */
const SinceS = Type.Optional(
  Type.String({
    maxLength: 64,
    description: 'A message id (msg_...) or an ISO 8601 time; default: now. Pass next_since of the previous call.',
  }),
);
/** How long a wait tool waits when the call does not say: the REST long-poll's longest. */
export const DEFAULT_WAIT_S = 30;
const TimeoutS = Type.Optional(
  Type.Integer({ minimum: 1, maximum: 50, description: `How long to wait, 1-50 seconds (default ${DEFAULT_WAIT_S}).` }),
);
/** What every wait is: a read, never replayed, of a cell or message that may not exist, holding a slot. */
const WAIT = { scope: 'messages:read', idempotency: 'none', errors: ['not_found', 'rate_limited'] } as const;
const waitMsOf = (args: { timeout_s?: number }) => (args.timeout_s ?? DEFAULT_WAIT_S) * 1000;

export interface WaitDeps {
  cells: CellsService;
  messages: MessagesService;
  codes: CodesService;
  events: EventsService;
  clock: Clock;
  /** Concurrent waits per organization (CELLGATE_MAX_STREAMS_PER_ORG); one more is `rate_limited`. */
  waits: ConnectionCap;
}

export function waitOperations(deps: WaitDeps) {
  // A wait holds one of the organization's slots until it answers, times out or the client hangs up.
  const waitFor = <T>(spec: WaitSpec<T>) =>
    deps.waits.hold(spec.organizationId, () => waitForEvent<T>(deps.events, spec));
  return {
    waitForReply: defineOperation({
      name: 'wait_for_reply',
      summary: 'Wait for a reply',
      description:
        "Waits up to timeout_s for the first inbound message to the cell after `since` (from `participant` if given). After send_message, pass the sent message's id as `since`, so a reply that came fast is never missed. Returns it with next_since, or message null and next_since to call again.",
      ...WAIT,
      input: Type.Object(
        {
          cell_id: id('cell'),
          participant: Type.Optional(PhoneInput),
          since: SinceS,
          timeout_s: TimeoutS,
        },
        { additionalProperties: false },
      ),
      output: Type.Object({ message: Nullable(Message), next_since: Type.String() }),
      run: async (ctx, args) => {
        const org = ctx.organizationId;
        const bound = sinceBound(args.since, deps.clock);
        const participant = args.participant === undefined ? undefined : requirePhone('participant', args.participant);
        const cell = await deps.cells.get(org, args.cell_id);
        const matches = (m: EventData) =>
          m.cell_id === cell.id &&
          m.direction === 'inbound' &&
          (participant === undefined || m.from === participant) &&
          String(m.id) > bound;
        const message = await waitFor<MessageView>({
          organizationId: org,
          types: ['message.received'],
          match: (data) => (matches(data) ? (data as unknown as MessageView) : undefined),
          lookup: () => firstInboundAfter(deps.messages, org, cell.id, participant, bound),
          timeoutMs: waitMsOf(args),
          signal: ctx.signal,
        });
        return message ? { message, next_since: message.id } : { message: null, next_since: bound };
      },
    }),
    waitForDelivery: defineOperation({
      name: 'wait_for_delivery',
      summary: 'Wait for a message to be final',
      description:
        'Waits up to timeout_s for a sent message to be final (delivered, failed or canceled; or sent, from a phone that does not report delivery). Returns the message and whether it is final.',
      ...WAIT,
      input: Type.Object(
        {
          message_id: id('msg'),
          cell_id: Type.Optional({ ...id('cell'), description: 'The cell of the message (saves a lookup).' }),
          timeout_s: TimeoutS,
        },
        { additionalProperties: false },
      ),
      output: Type.Object({
        message: Message,
        final: Type.Boolean({
          description:
            'The message will change no more: delivered, failed or canceled, or sent from a phone without delivery reports.',
        }),
        delivery_reports: Type.Boolean({
          description: "Whether the cell's phone reports delivery; false: the wait ends at sent.",
        }),
        note: Type.Optional(Type.String()),
      }),
      run: async (ctx, args) => {
        const org = ctx.organizationId;
        const current = await findMessage(deps, org, args.message_id, args.cell_id);
        const { capabilities } = await deps.cells.get(org, current.cell_id);
        const end = deliveryWaitEnd(capabilities.delivery_reports);
        const isFinal = end.isEnd;
        const final = isFinal(current)
          ? current
          : await waitFor<MessageView>({
              organizationId: org,
              types: end.types,
              match: (data) => (data.id === current.id && isFinal(data) ? (data as unknown as MessageView) : undefined),
              lookup: async () => {
                const again = await deps.messages.get(org, current.cell_id, current.id);
                return isFinal(again) ? again : undefined;
              },
              timeoutMs: waitMsOf(args),
              signal: ctx.signal,
            });
        const message = final ?? (await deps.messages.get(org, current.cell_id, current.id));
        const note = end.note(message);
        return {
          message,
          final: final !== undefined,
          delivery_reports: capabilities.delivery_reports,
          ...(note ? { note } : {}),
        };
      },
    }),
    waitForCode: defineOperation({
      name: 'wait_for_code',
      summary: 'Wait for a verification code',
      description:
        'Waits up to timeout_s for a verification (one-time) code texted to the cell after `since` (from `from`, of `service`, if given). Returns the newest such code with next_since, or code null and next_since to call again.',
      ...WAIT,
      input: Type.Object(
        {
          cell_id: id('cell'),
          from: Type.Optional({ ...PhoneInput, description: 'Only codes from this sender (E.164).' }),
          service: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 100,
              description: 'Only codes of this service, e.g. "Google" (any case).',
            }),
          ),
          since: SinceS,
          timeout_s: TimeoutS,
        },
        { additionalProperties: false },
      ),
      output: Type.Object({ code: Nullable(Code), next_since: Type.String() }),
      run: async (ctx, args) => {
        const org = ctx.organizationId;
        const { codes, since } = await deps.waits.hold(org, () =>
          deps.codes.list(
            org,
            args.cell_id,
            { since: args.since, from: args.from, service: args.service, waitMs: waitMsOf(args), limit: 1 },
            ctx.signal,
          ),
        );
        const code = codes[0];
        return code ? { code, next_since: code.message_id } : { code: null, next_since: since ?? '' };
      },
    }),
  };
}

export type WaitOperations = ReturnType<typeof waitOperations>;

/** The oldest inbound message of the cell above `bound` (listings are newest first: the last one). */
async function firstInboundAfter(
  messages: MessagesService,
  org: string,
  cellId: string,
  participant: string | undefined,
  bound: string,
) {
  let oldest: MessageView | undefined;
  let cursor: string | undefined;
  do {
    const page = await messages.list(org, cellId, {
      direction: 'inbound',
      participant,
      since: boundTime(bound),
      limit: LIST_PAGE,
      cursor,
    });
    for (const message of page.messages) if (message.id > bound) oldest = message;
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return oldest;
}

/** A message of the organization by id: in the given cell, else in whichever of its cells holds it. */
async function findMessage(deps: WaitDeps, org: string, messageId: string, cellId?: string): Promise<MessageView> {
  if (cellId) return deps.messages.get(org, cellId, messageId);
  let cursor: string | undefined;
  do {
    const page = await deps.cells.list(org, undefined, { limit: LIST_PAGE, cursor });
    for (const cell of page.cells) {
      const found = await deps.messages.get(org, cell.id, messageId).catch((error) => {
        if (error instanceof ApiError && error.code === 'not_found') return undefined;
        throw error;
      });
      if (found) return found;
    }
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  throw new ApiError('not_found', 'No such message.');
}
