// The MCP tools (contract §10): each binds an operation (src/operations) with what an agent reads
// in tools/list and a one-line text of its answer. Admission, idempotency, validation and the
// completion of a 402 are invoke's, as for the REST routes of the same operations. Free of the
// SDK's code (types only): the tools are bound and checked at start-up, the SDK loads on first use.
import type { McpServer, RegisteredTool, ToolAnnotations } from '@modelcontextprotocol/server';
import { Type } from 'typebox';
import type { AgentPrincipal } from '../../operations/principals.ts';
import type { Invoker } from '../../operations/invoke.ts';
import { ConfirmationRequired, type BillingOperations } from '../billing/operations.ts';
import { dollars, dollarsOfNumber } from '../billing/money.ts';
import { Cell } from '../cells/schemas.ts';
import type { CellOperations } from '../cells/operations.ts';
import type { MessageOperations } from '../messages/operations.ts';
import type { OrganizationOperations } from '../organizations/operations.ts';
import { Message } from '../messages/views.ts';
import type { AgentPodOperations } from '../pods/agent-operations.ts';
import type { PodOperations } from '../pods/operations.ts';
import { id } from '../pods/schemas.ts';
import { CycleJob, type JobView } from '../pods/views.ts';
import type { StatusOperations } from '../status/operations.ts';
import type { WebhookOperations } from '../webhooks/operations.ts';
import { boundTool, registerBoundTool, tool, type BoundTool, type McpPayments, type ToolBinding } from './bind.ts';
import type { CallContext } from './results.ts';
import type { WaitOperations } from './operations.ts';
import { TOOL_SCOPES, type ToolName } from './scopes.ts';
import { TASK_TOOLS, TASKS_CAPABILITY } from './tasks.ts';

export interface ToolOperations {
  cells: CellOperations;
  messages: MessageOperations;
  status: StatusOperations;
  waits: WaitOperations;
  /** The pods' REST operations and the broadcast's quote. */
  pods: PodOperations & AgentPodOperations;
  webhooks: WebhookOperations;
  billing: BillingOperations;
  organizations: Pick<OrganizationOperations, 'verifyOrganization'>;
}

/** What the server tells a model on initialize (contract §10). */
export const INSTRUCTIONS = [
  'Cellgate gives you phone lines: a cell is one phone number on a real phone, which sends and receives SMS/MMS for you.',
  'Start with get_status: it says what is missing. A new organization first calls verify_organization with the 6-digit code emailed at sign-up.',
  'Costs: a cell is paid by the month (the first is the setup of a tier), and each text sent is taken from the prepaid balance; receiving is free. get_billing shows the state, the balance and how to pay; pay pays an intent (setup may carry a starting balance, amount_usd), by x402 in the tool call where the server offers it, else through a checkout_url a person opens.',
  'The loop: create_cell (once) -> send_message (with an idempotency_key) -> wait_for_delivery -> wait_for_reply with since set to the sent message id (so a fast reply is never missed); wait_for_code reads one-time codes texted to the cell.',
  'A tool that fails answers isError with {"error": {code, message, field?}}: fix the named field, or follow the message.',
].join('\n');

export interface ToolDeps {
  operations: ToolOperations;
  invoker: Invoker;
  version: string;
  /** The MCP endpoint's URL: the resource an x402 payment of a tool names. */
  endpointUrl: string;
  /** Aborted when the process drains (SIGTERM, SIGINT): the waits answer at once. */
  drain: AbortSignal;
  /** Payments inside a tool call (x402 MCP transport). */
  payments: McpPayments;
}

const hints = (readOnlyHint: boolean, idempotentHint: boolean, openWorldHint: boolean, destructiveHint = false) =>
  ({ readOnlyHint, destructiveHint, idempotentHint, openWorldHint }) satisfies ToolAnnotations;
const READ = hints(true, true, false);

/** The status checks' REST hints, as the tools that do the same over MCP (an agent here makes no REST call). */
const TOOL_HINTS: [string, string][] = [
  ['POST /v1/agent/verify with the emailed code', 'call verify_organization with the emailed code'],
  ['see GET /v1/webhooks/{id}/deliveries', 'see list_webhook_deliveries'],
  ['POST /v1/cells.', 'create_cell.'],
  ['filter GET /v1/cells/{cell_id}/messages?status=failed', 'call list_messages with status "failed"'],
  ['(POST /v1/billing/checkout or x402, intent setup)', '(pay with intent "setup")'],
];
const overMcp = (detail: string) => TOOL_HINTS.reduce((text, [rest, tool]) => text.replace(rest, tool), detail);

/** The tools, in the order tools/list shows them. */
export function toolBindings(ops: ToolOperations): Record<ToolName, ToolBinding> {
  return {
    list_cells: tool({
      operation: ops.cells.listCells,
      description: "Lists the organization's phone lines (cells), newest first.",
      annotations: READ,
      result: (page) => ({
        text: `${page.cells.length} cell(s): ${page.cells.map((c) => `${c.id} ${c.phone_number ?? '(no number yet)'} ${c.status}`).join('; ') || 'none'}.`,
      }),
    }),
    get_status: tool({
      operation: ops.status.getStatus,
      description:
        'What is wrong, in one call: organization, billing, cells online, queued and failed messages, webhooks, with checks.',
      annotations: READ,
      result: (answer) => {
        const status = { ...answer, checks: answer.checks.map((c) => ({ ...c, detail: overMcp(c.detail) })) };
        const failing = status.checks.filter((c) => c.status !== 'ok');
        return {
          structured: status,
          text:
            failing.length === 0
              ? 'All checks pass.'
              : failing.map((c) => `${c.name}: ${c.status}: ${c.detail}`).join('\n'),
        };
      },
    }),
    list_conversations: tool({
      operation: ops.messages.listConversations,
      description: 'Lists the conversations of a cell (one per other party), by latest activity.',
      annotations: READ,
      result: (page) => ({
        text: `${page.conversations.length} conversation(s): ${page.conversations.map((c) => c.participant).join(', ') || 'none'}.`,
      }),
    }),
    get_conversation: tool({
      operation: ops.messages.getConversation,
      description: 'The conversation of a cell with one participant and its latest messages (newest first).',
      annotations: READ,
      result: (result) => ({
        text: `${result.messages.length} message(s) with ${result.conversation.participant}.`,
      }),
    }),
    list_messages: tool({
      operation: ops.messages.listMessages,
      description:
        'Lists the messages of a cell, newest first; filters: direction, status, participant, since. Page with cursor.',
      annotations: READ,
      result: (page) => ({
        text: `${page.messages.length} message(s)${page.next_cursor ? '; more with next_cursor' : ''}.`,
      }),
    }),
    send_message: tool({
      operation: ops.messages.sendMessage,
      description:
        'Texts `to` from the cell (SMS, or MMS with media_urls). Answers the queued message; wait_for_delivery follows it. Retrying with the same idempotency_key never sends twice.',
      annotations: hints(false, true, true),
      requireKey: true,
      output: Type.Object({ message: Message, replayed: Type.Boolean() }),
      result: (message, replayed) => ({
        structured: { message, replayed },
        text: `${replayed ? 'Already queued' : 'Queued'} ${message.id} to ${message.to} (${message.status}).`,
      }),
    }),
    wait_for_reply: tool({
      operation: ops.waits.waitForReply,
      annotations: READ,
      result: (result) => ({
        text: result.message
          ? `Reply from ${result.message.from}: ${result.message.body}`
          : `No reply yet; call again with since=${result.next_since}.`,
      }),
    }),
    wait_for_delivery: tool({
      operation: ops.waits.waitForDelivery,
      annotations: READ,
      result: (result) => ({
        text: `${result.message.id} is ${result.message.status}${result.final ? '' : ' (not final yet; call again)'}.${result.note ? ` ${result.note}` : ''}`,
      }),
    }),
    wait_for_code: tool({
      operation: ops.waits.waitForCode,
      annotations: READ,
      result: (result) => ({
        text: result.code
          ? `Code ${result.code.code}${result.code.service ? ` (${result.code.service})` : ''} from ${result.code.from}.`
          : `No code yet; call again with since=${result.next_since}.`,
      }),
    }),
    create_cell: tool({
      operation: ops.cells.createCell,
      description:
        "Creates a phone line. Without confirm: true nothing is done: the answer says what it costs and whether a payment is needed first (confirmation_required). With confirm: true the cell is created when it is paid for (the tier's included cells, or a paid create_cell); otherwise the answer is payment_required with what to pay: pay it (pay, or x402 in this call), or give its checkout_url to a person, then call again.",
      annotations: hints(false, false, false),
      confirm: { quote: ops.billing.quoteCreateCell },
      output: Type.Object({ cell: Type.Optional(Cell), ...ConfirmationRequired }),
      result: (cell) => ({
        structured: { cell },
        text: `Created ${cell.id} (${cell.status}${cell.phone_number ? `, ${cell.phone_number}` : ', waiting for a phone'}).`,
      }),
    }),
    list_pods: tool({
      operation: ops.pods.listPods,
      description: "Lists the organization's pods (sender pools of cells), newest first, each with its cells.",
      annotations: READ,
      result: (page) => ({
        text: `${page.pods.length} pod(s): ${page.pods.map((p) => `${p.id} ${p.name} (${p.cell_ids.length} cell(s))`).join('; ') || 'none'}.`,
      }),
    }),
    send_from_pod: tool({
      operation: ops.pods.drafts.pod.send,
      // The REST send's pod and draft; its send_at and send_now are not the tool's.
      input: Type.Object({ pod_id: id('pod'), draft_id: id('drf') }, { additionalProperties: false }),
      description:
        'Sends a draft of a pod: from the pod cell the recipient already talks to, else the next active cell (rotation). Answers the queued message; wait_for_delivery follows it. Retrying with the same idempotency_key never sends twice.',
      annotations: hints(false, true, true),
      output: Type.Object({ message: Message, replayed: Type.Boolean() }),
      result: (message, replayed) => ({
        structured: { message, replayed },
        text: `${replayed ? 'Already queued' : 'Queued'} ${message.id} to ${message.to} from ${message.cell_id} (${message.status}).`,
      }),
    }),
    start_cycle: {
      operation: ops.pods.startPodCycle,
      // A retry with the client_id of an earlier job answers that job, as a replay (as REST does).
      answer: ({ replayed, job }: { replayed: boolean; job: JobView }) => ({ value: job, replayed }),
      description:
        'Starts a cycle job of a pod (a broadcast is paid: without confirm: true it only answers the price, confirmation_required): a ring (each active cell texts the next) or a broadcast (one message per distinct recipient of `to` or `list_id`). Answers the queued job; its messages go out in the background.',
      annotations: hints(false, true, true),
      confirm: { quote: ops.pods.quoteBroadcast, when: (input) => input.mode === 'broadcast' },
      output: Type.Object({
        job: Type.Optional(CycleJob),
        replayed: Type.Optional(Type.Boolean()),
        ...ConfirmationRequired,
      }),
      result: (job: JobView, replayed) => ({
        structured: { job, replayed },
        text: `${replayed ? 'Already started' : 'Started'} ${job.mode} ${job.id} (${job.status}, ${job.counts.total} message(s)).`,
      }),
    },
    get_usage: tool({
      operation: ops.billing.getUsage,
      description:
        'Usage totals by type (sms, mms, cell_month) and their cost over [from, to); default: the last 30 days.',
      annotations: READ,
      result: (summary) => ({
        text: `${dollars(summary.amount_usd)} from ${summary.from} to ${summary.to}: ${summary.by_type.map((t) => `${t.type} ${t.quantity}`).join(', ')}.`,
      }),
    }),
    list_webhook_deliveries: tool({
      operation: ops.webhooks.listWebhookDeliveries,
      description: 'Lists the deliveries of a webhook endpoint, newest first, each with its attempts.',
      annotations: READ,
      result: (page) => ({
        text: `${page.deliveries.length} deliver(ies): ${page.deliveries.map((d) => `${d.id} ${d.event_type} ${d.status}`).join('; ') || 'none'}.`,
      }),
    }),
    verify_organization: tool({
      operation: ops.organizations.verifyOrganization,
      description:
        'Verifies a new organization with the 6-digit code emailed at sign-up (5 attempts per code). Until then the other tools answer organization_unverified.',
      annotations: hints(false, true, false),
      result: (result) => ({
        text: `Verified: ${result.organization_id} is active. Next: get_status, then create_cell.`,
      }),
    }),
    get_billing: tool({
      operation: ops.billing.getBilling,
      description:
        'The billing state (inactive until the first setup is paid), tier, prepaid balance, amount due, and how to pay here (rails, minimum payment, x402 networks).',
      annotations: READ,
      result: (billing) => ({
        text: `Billing ${billing.status.state}${billing.status.tier ? ` (${billing.status.tier})` : ''}; balance ${dollarsOfNumber(billing.status.prepaid_balance_usd)}${billing.status.amount_due_usd > 0 ? `; due ${dollarsOfNumber(billing.status.amount_due_usd)}` : ''}; rails: ${billing.payment_options.rails?.join(', ') || 'none'}.`,
      }),
    }),
    pay: {
      operation: ops.billing.pay,
      settles: true,
      description:
        'Pays an intent (setup: the first month of a tier, with amount_usd as a starting balance if given; top_up: amount_usd onto the balance; renewal, reinstate, create_cell). Without a payment it answers payment_required: where x402 is offered, the x402 PaymentRequired (x402 MCP transport: retry this call with _meta["x402/payment"]); always `payment.checkout_url`, for a person to pay by card. Paid, it answers the payment and the billing after it.',
      annotations: hints(false, true, true),
      result: (paid: {
        intent: string;
        amount_usd: string;
        billing: { state: string; prepaid_balance_usd: number };
      }) => ({
        text: `Paid ${paid.intent}: ${dollars(paid.amount_usd)}. Billing ${paid.billing.state}; balance ${dollarsOfNumber(paid.billing.prepaid_balance_usd)}.`,
      }),
    },
    cancel_message: tool({
      operation: ops.messages.cancelMessage,
      description: 'Cancels a message while it is still queued (its charge is refunded); afterwards a conflict error.',
      annotations: hints(false, false, false, true),
      result: (message) => ({
        structured: { message },
        text: `Canceled ${message.id} to ${message.to}.`,
      }),
      output: Type.Object({ message: Message }),
    }),
  };
}

/**
 * The tools with their schemas, built once. The route decides a call's scope from TOOL_SCOPES
 * before the SDK loads; each tool's operation must need exactly that scope (checked here).
 */
export function boundTools(ops: ToolOperations): BoundTool[] {
  return Object.entries(toolBindings(ops)).map(([name, binding]) => {
    if (TOOL_SCOPES[name as ToolName] !== binding.operation.scope)
      throw new Error(
        `MCP tool ${name}: TOOL_SCOPES says ${TOOL_SCOPES[name as ToolName]}, its operation ${binding.operation.scope}`,
      );
    return boundTool(name, binding);
  });
}

/**
 * The waits also run as MCP tasks (./tasks.ts): tools/list says so (`execution.taskSupport`) to a
 * client of the 2025-11-25 protocol. registerTool takes no `execution` in SDK 2.4.0 (the 2026
 * protocol deleted it; its codec strips it again), so it is set on the registered tool.
 */
function declareTaskSupport(registered: RegisteredTool, name: string): void {
  if ((TASK_TOOLS as readonly string[]).includes(name)) registered.execution = { taskSupport: 'optional' };
}

/**
 * One MCP server for one request, acting for `agent` (stateless). The SDK's class is passed in:
 * this file loads without the SDK, so the start-up check runs early.
 */
export function mcpServer(
  Server: typeof McpServer,
  deps: ToolDeps,
  tools: readonly BoundTool[],
  agent: AgentPrincipal,
  call: CallContext,
): McpServer {
  const server = new Server(
    { name: 'cellgate', version: deps.version },
    { capabilities: { tasks: TASKS_CAPABILITY }, instructions: INSTRUCTIONS },
  );
  for (const tool of tools) {
    const registered = registerBoundTool(server, tool, {
      invoker: deps.invoker,
      agent,
      call,
      drain: deps.drain,
      payments: deps.payments,
      endpointUrl: deps.endpointUrl,
    });
    declareTaskSupport(registered, tool.name);
  }
  return server;
}
