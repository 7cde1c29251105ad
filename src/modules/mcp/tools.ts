// The MCP tools: each a thin call into the services the REST routes use, with the scope the
// matching REST route needs (API keys carry every scope) and the same organization checks.
import { McpServer, type CallToolResult, type ToolAnnotations } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { ConnectionCap } from '../../http/connection-caps.ts';
import type { IdempotencyStore } from '../../http/idempotency.ts';
import { idempotentSend, type IdempotentRoute } from '../../http/idempotent-send.ts';
import type { AgentPrincipal } from '../../http/types.ts';
import type { Clock } from '../../lib/clock.ts';
import { ApiError } from '../../lib/errors.ts';
import { requirePhone } from '../../lib/phone.ts';
import type { CellsService } from '../cells/service.ts';
import type { CodesService } from '../codes/service.ts';
import type { EventsService } from '../events/service.ts';
import type { MessagesService } from '../messages/service.ts';
import type { MessageView } from '../messages/views.ts';
import type { AgentStatusService } from '../status/service.ts';
import { asToolError, ok, storedError } from './results.ts';
import * as s from './schemas.ts';
import { TOOL_SCOPES, type ToolName } from './scopes.ts';
import { boundTime, deliveryWaitEnd, sinceBound, waitForEvent, type EventData, type WaitSpec } from './waits.ts';

export interface ToolDeps {
  cells: CellsService;
  messages: MessagesService;
  codes: CodesService;
  status: AgentStatusService;
  events: EventsService;
  idempotency: IdempotencyStore;
  clock: Clock;
  version: string;
  /** Completes a billing 402 (checkout URL, x402 quote) as REST does for its 402s. */
  payments: { completeError(organizationId: string, error: ApiError, resourceUrl: string): Promise<ApiError> };
  /** The MCP endpoint's URL: the resource an x402 payment of a tool names. */
  endpointUrl: string;
  /** Concurrent waits per organization (CELLGATE_MAX_STREAMS_PER_ORG); one more is a `rate_limited` tool error. */
  waits: ConnectionCap;
}

/** send_message's keys: never the REST route's. */
const SEND_ROUTE: IdempotentRoute = {
  route: 'mcp:send_message',
  inProgress: 'A send_message with this idempotency_key is still being processed; retry shortly.',
  reused: 'This idempotency_key was used with different arguments in the last 24 hours.',
};

const READ: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
const LIST_PAGE = 200;

interface ToolSpec<In extends z.ZodObject, Out extends z.ZodObject> {
  description: string;
  /** Callable before the organization is verified (as GET /v1/agent/status is). */
  allowUnverified?: boolean;
  annotations: ToolAnnotations;
  input: In;
  output: Out;
  run(args: z.infer<In>, signal: AbortSignal): Promise<CallToolResult>;
}

/** The tools' schemas, built once (zod objects cost ~15 µs each: per request, 270 µs). */
const SCHEMAS = {
  list_cells: {
    input: z.object({
      status: z.enum(['provisioning', 'active', 'suspended']).optional(),
      limit: s.Limit,
      cursor: s.Cursor,
    }),
    output: z.object({ cells: z.array(s.Cell), next_cursor: s.NextCursor }),
  },
  get_status: {
    input: z.object({}),
    output: z.looseObject({
      checks: z.array(z.looseObject({ name: z.string(), status: z.string(), detail: z.string() })),
    }),
  },
  list_conversations: {
    input: z.object({ cell_id: s.CellId, limit: s.Limit, cursor: s.Cursor }),
    output: z.object({ conversations: z.array(s.Conversation), next_cursor: s.NextCursor }),
  },
  get_conversation: {
    input: z.object({ cell_id: s.CellId, participant: s.Phone }),
    output: z.object({ conversation: s.Conversation, messages: z.array(s.Message) }),
  },
  list_messages: {
    input: z.object({
      cell_id: s.CellId,
      direction: z.enum(['outbound', 'inbound']).optional(),
      status: z
        .enum(['scheduled', 'queued', 'sending', 'sent', 'delivered', 'failed', 'canceled', 'received'])
        .optional(),
      participant: s.Phone.optional(),
      since: z.iso.datetime().optional().describe('Only messages created at or after this time (ISO 8601).'),
      limit: s.Limit,
      cursor: s.Cursor,
    }),
    output: z.object({ messages: z.array(s.Message), next_cursor: s.NextCursor }),
  },
  send_message: {
    input: z.object({
      cell_id: s.CellId,
      to: s.Phone,
      body: s.MessageBody,
      media_urls: s.MediaUrls.optional(),
      idempotency_key: s.IdempotencyKey,
    }),
    output: z.object({ message: s.Message, replayed: z.boolean() }),
  },
  wait_for_reply: {
    input: z.object({
      cell_id: s.CellId,
      participant: s.Phone.optional(),
      since: z
        .string()
        .max(64)
        .optional()
        .describe('A message id (msg_...) or an ISO 8601 time; default: now. Pass next_since of the previous call.'),
      timeout_s: s.TimeoutS,
    }),
    output: z.object({ message: s.Message.nullable(), next_since: z.string() }),
  },
  wait_for_delivery: {
    input: z.object({
      message_id: s.MessageId,
      cell_id: s.CellId.optional().describe('The cell of the message (saves a lookup).'),
      timeout_s: s.TimeoutS,
    }),
    output: z.object({
      message: s.Message,
      final: z
        .boolean()
        .describe(
          'The message will change no more: delivered, failed or canceled, or sent from a phone without delivery reports.',
        ),
      delivery_reports: z
        .boolean()
        .describe("Whether the cell's phone reports delivery; false: the wait ends at sent."),
      note: z.string().optional(),
    }),
  },
  create_cell: {
    input: z.object({
      display_name: z.string().min(1).max(100).regex(/\S/, 'at least one visible character'),
      tier: z.string().min(1).max(32).optional(),
    }),
    output: z.object({ cell: s.Cell }),
  },
  wait_for_code: {
    input: z.object({
      cell_id: s.CellId,
      from: s.Phone.optional().describe('Only codes from this sender (E.164).'),
      service: z.string().min(1).max(100).optional().describe('Only codes of this service, e.g. "Google" (any case).'),
      since: z
        .string()
        .max(64)
        .optional()
        .describe('A message id (msg_...) or an ISO 8601 time; default: now. Pass next_since of the previous call.'),
      timeout_s: s.TimeoutS,
    }),
    output: z.object({
      code: z
        .object({
          code: z.string(),
          message_id: z.string(),
          from: z.string(),
          service: z.string().nullable(),
          received_at: z.string(),
        })
        .nullable(),
      next_since: z.string(),
    }),
  },
};

/**
 * The organization and scope checks of REST's agent routes (src/http/auth.ts), as tool errors.
 * The route answers a missing scope with HTTP 403 before a tool runs (MCP step-up); the check
 * here keeps a tool safe on its own.
 */
function admit(agent: AgentPrincipal, spec: { scope: string | null; allowUnverified?: boolean }): void {
  if (!spec.allowUnverified && agent.organizationStatus === 'unverified') {
    throw new ApiError(
      'organization_unverified',
      'Verify the organization first: POST /v1/agent/verify with the emailed code.',
    );
  }
  if (!spec.allowUnverified && agent.organizationStatus === 'suspended')
    throw new ApiError('organization_suspended', 'The organization is suspended.');
  if (spec.scope && !agent.scopes.includes(spec.scope)) {
    throw new ApiError('insufficient_scope', `The access token lacks the ${spec.scope} scope.`, {
      extensions: { scope: spec.scope },
    });
  }
}

/** One MCP server for one request, acting for `agent` (stateless: nothing outlives the request). */
export function mcpServer(deps: ToolDeps, agent: AgentPrincipal): McpServer {
  const server = new McpServer({ name: 'cellgate', version: deps.version });
  const org = agent.organizationId;
  // A wait holds one of the organization's slots until it answers, times out or the client hangs up.
  const waitFor = <T>(spec: WaitSpec<T>) => deps.waits.hold(org, () => waitForEvent<T>(deps.events, spec));
  const add = <In extends z.ZodObject, Out extends z.ZodObject>(name: ToolName, spec: ToolSpec<In, Out>) => {
    server.registerTool(
      name,
      {
        description: spec.description,
        inputSchema: spec.input,
        outputSchema: spec.output,
        annotations: spec.annotations,
      },
      (async (args: z.infer<In>, ctx: { mcpReq: { signal: AbortSignal } }) => {
        try {
          admit(agent, { scope: TOOL_SCOPES[name], allowUnverified: spec.allowUnverified });
          return await spec.run(args, ctx.mcpReq.signal);
        } catch (error) {
          if (error instanceof ApiError && error.code === 'payment_required')
            return asToolError(await deps.payments.completeError(org, error, deps.endpointUrl));
          return asToolError(error);
        }
      }) as never,
    );
  };

  add('list_cells', {
    description: "Lists the organization's phone lines (cells), newest first.",
    annotations: READ,
    input: SCHEMAS.list_cells.input,
    output: SCHEMAS.list_cells.output,
    run: async (args) => {
      const page = await deps.cells.list(org, args.status, args);
      return ok(
        page,
        `${page.cells.length} cell(s): ${page.cells.map((c) => `${c.id} ${c.phone_number ?? '(no number yet)'} ${c.status}`).join('; ') || 'none'}.`,
      );
    },
  });

  add('get_status', {
    description:
      'What is wrong, in one call: organization, billing, cells online, queued and failed messages, webhooks, with checks.',
    allowUnverified: true,
    annotations: READ,
    input: SCHEMAS.get_status.input,
    output: SCHEMAS.get_status.output,
    run: async () => {
      const status = await deps.status.status(agent);
      const failing = status.checks.filter((c) => c.status !== 'ok');
      return ok(
        status,
        failing.length === 0
          ? 'All checks pass.'
          : failing.map((c) => `${c.name}: ${c.status}: ${c.detail}`).join('\n'),
      );
    },
  });

  add('list_conversations', {
    description: 'Lists the conversations of a cell (one per other party), by latest activity.',
    annotations: READ,
    input: SCHEMAS.list_conversations.input,
    output: SCHEMAS.list_conversations.output,
    run: async (args) => {
      const page = await deps.messages.listConversations(org, args.cell_id, args);
      return ok(
        page,
        `${page.conversations.length} conversation(s): ${page.conversations.map((c) => c.participant).join(', ') || 'none'}.`,
      );
    },
  });

  add('get_conversation', {
    description: 'The conversation of a cell with one participant and its latest messages (newest first).',
    annotations: READ,
    input: SCHEMAS.get_conversation.input,
    output: SCHEMAS.get_conversation.output,
    run: async (args) => {
      const result = await deps.messages.between(org, args.cell_id, args.participant);
      return ok(result, `${result.messages.length} message(s) with ${result.conversation.participant}.`);
    },
  });

  add('list_messages', {
    description:
      'Lists the messages of a cell, newest first; filters: direction, status, participant, since. Page with cursor.',
    annotations: READ,
    input: SCHEMAS.list_messages.input,
    output: SCHEMAS.list_messages.output,
    run: async (args) => {
      const page = await deps.messages.list(org, args.cell_id, args);
      return ok(page, `${page.messages.length} message(s)${page.next_cursor ? '; more with next_cursor' : ''}.`);
    },
  });

  add('send_message', {
    description:
      'Texts `to` from the cell (SMS, or MMS with media_urls). Answers the queued message; wait_for_delivery follows it. Retrying with the same idempotency_key never sends twice.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    input: SCHEMAS.send_message.input,
    output: SCHEMAS.send_message.output,
    run: async ({ idempotency_key, ...args }) => {
      // Normalised first, so "+1 415 555 0123" and "+14155550123" are the same arguments.
      const input = { ...args, to: requirePhone('to', args.to) };
      const outcome = await idempotentSend(deps.idempotency, SEND_ROUTE, org, idempotency_key, input, (record) =>
        deps.messages.send(org, input.cell_id, input, { record }),
      );
      if ('error' in outcome) return storedError(outcome.error);
      const { message } = outcome;
      return ok(
        { message, replayed: outcome.replayed },
        `${outcome.replayed ? 'Already queued' : 'Queued'} ${message.id} to ${message.to} (${message.status}).`,
      );
    },
  });

  add('wait_for_reply', {
    description:
      'Waits up to timeout_s for the first inbound message to the cell after `since` (from `participant` if given). Returns it with next_since, or message null and next_since to call again.',
    annotations: READ,
    input: SCHEMAS.wait_for_reply.input,
    output: SCHEMAS.wait_for_reply.output,
    run: async (args, signal) => {
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
        timeoutMs: args.timeout_s * 1000,
        signal,
      });
      if (!message)
        return ok(
          { message: null, next_since: bound },
          `No reply within ${args.timeout_s} s; call again with since=${bound}.`,
        );
      return ok({ message, next_since: message.id }, `Reply from ${message.from}: ${message.body}`);
    },
  });

  add('wait_for_delivery', {
    description:
      'Waits up to timeout_s for a sent message to be final (delivered, failed or canceled; or sent, from a phone that does not report delivery). Returns the message and whether it is final.',
    annotations: READ,
    input: SCHEMAS.wait_for_delivery.input,
    output: SCHEMAS.wait_for_delivery.output,
    run: async (args, signal) => {
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
            timeoutMs: args.timeout_s * 1000,
            signal,
          });
      const message = final ?? (await deps.messages.get(org, current.cell_id, current.id));
      const note = end.note(message);
      return ok(
        {
          message,
          final: final !== undefined,
          delivery_reports: capabilities.delivery_reports,
          ...(note ? { note } : {}),
        },
        `${message.id} is ${message.status}${final ? '' : ' (not final yet; call again)'}.${note ? ` ${note}` : ''}`,
      );
    },
  });

  add('create_cell', {
    description:
      'Creates a phone line. With billing on, an unpaid organization gets an error carrying `payment` (PaymentDetails): pay it, then call again.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    input: SCHEMAS.create_cell.input,
    output: SCHEMAS.create_cell.output,
    run: async (args) => {
      const cell = await deps.cells.create(org, args.display_name, { tier: args.tier });
      return ok(
        { cell },
        `Created ${cell.id} (${cell.status}${cell.phone_number ? `, ${cell.phone_number}` : ', waiting for a phone'}).`,
      );
    },
  });

  add('wait_for_code', {
    description:
      'Waits up to timeout_s for a verification (one-time) code texted to the cell after `since` (from `from`, of `service`, if given). Returns the newest such code with next_since, or code null and next_since to call again.',
    annotations: READ,
    input: SCHEMAS.wait_for_code.input,
    output: SCHEMAS.wait_for_code.output,
    run: async (args, signal) => {
      const { codes, since } = await deps.waits.hold(org, () =>
        deps.codes.list(
          org,
          args.cell_id,
          { since: args.since, from: args.from, service: args.service, waitMs: args.timeout_s * 1000, limit: 1 },
          signal,
        ),
      );
      const code = codes[0];
      const bound = since ?? '';
      if (!code)
        return ok(
          { code: null, next_since: bound },
          `No code within ${args.timeout_s} s; call again with since=${bound}.`,
        );
      return ok(
        { code, next_since: code.message_id },
        `Code ${code.code}${code.service ? ` (${code.service})` : ''} from ${code.from}.`,
      );
    },
  });

  return server;
}

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
async function findMessage(deps: ToolDeps, org: string, messageId: string, cellId?: string): Promise<MessageView> {
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
