// MCP Tasks (2025-11-25, as the v1 SDK client speaks them): a wait tool called with `params.task`
// answers a CreateTaskResult at once; tasks/get, /result, /list and /cancel follow it. SDK 2.4.0
// parses this vocabulary but runs none of it, so the route answers these here (docs/decisions.md
// "MCP Tasks"). A task is a row (./task-repository.ts) with the wait's arguments (`since` fixed at
// creation) and a deadline, so any process settles it by running the same tool: tasks/get looks
// once, tasks/result waits out the deadline. The stored answer is the tool's own CallToolResult.
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { AgentPrincipal } from '../../operations/principals.ts';
import type { Clock } from '../../lib/clock.ts';
import { idFloor } from '../../lib/ids.ts';
import { randomBase62 } from '../../lib/secrets.ts';
import { ApiError, errorOf } from '../../lib/errors.ts';
import { admit } from '../../operations/admit.ts';
import type { Invoker } from '../../operations/invoke.ts';
import { validateInput } from '../../operations/validate.ts';
import type { BoundTool } from './bind.ts';
import { DEFAULT_WAIT_S } from './operations.ts';
import { asToolError, ok, unverified, type CallContext } from './results.ts';
import { McpTaskRepository, NO_ARGUMENTS, type McpTaskRow, type TaskOwner } from './task-repository.ts';

/** The tools that run as tasks (execution.taskSupport "optional"), and when each one's answer is the awaited one. */
const SETTLED = {
  wait_for_reply: (answer: { message?: unknown }) => answer.message !== null,
  wait_for_code: (answer: { code?: unknown }) => answer.code !== null,
  wait_for_delivery: (answer: { final?: unknown }) => answer.final === true,
} as const;
type TaskTool = keyof typeof SETTLED;
export const TASK_TOOLS = Object.keys(SETTLED) as TaskTool[];
const isTaskTool = (name: unknown): name is TaskTool => typeof name === 'string' && Object.hasOwn(SETTLED, name);

/** What the server's initialize answer declares (2025-11-25 `capabilities.tasks`). */
export const TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } };

const TASK_METHODS = new Set(['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel']);
/** How long a client waits between two tasks/get (a look is one query; a second keeps it cheap). */
export const POLL_INTERVAL_MS = 1000;
const DEFAULT_TTL_MS = 60 * 60 * 1000;
const MAX_TTL_MS = 24 * 60 * 60 * 1000;
/** A task outlives its wait by at least this, for the client to fetch the answer. */
const MIN_RETENTION_MS = 60 * 1000;
/**
 * Working and failed tasks one organization may hold (contract §2 "Stored resources"); more is
 * refused, checked in the transaction of the insert (the table stays bounded).
 */
export const MAX_WORKING_TASKS = 100;
const LIST_PAGE = 50;
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

// JSON-RPC error codes (2025-11-25 Tasks: an unknown task or a cancel of an ended one is -32602).
const INVALID_PARAMS = -32602;
const METHOD_NOT_FOUND = -32601;
const SERVER_ERROR = -32000;

export interface RpcRequest {
  jsonrpc: '2.0';
  id: string | number;
  method: string;
  params?: Record<string, unknown>;
}

type RpcResponse =
  | { jsonrpc: '2.0'; id: string | number; result: Record<string, unknown> }
  | { jsonrpc: '2.0'; id: string | number; error: { code: number; message: string; data?: unknown } };

class RpcError extends Error {
  readonly code: number;
  readonly data?: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/** The request of a body that is ours to answer: one JSON-RPC request of a tasks/* method, or a tools/call with `task`. */
export function taskRequestOf(message: unknown): RpcRequest | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const request = message as Partial<RpcRequest>;
  if (request.jsonrpc !== '2.0' || (typeof request.id !== 'string' && typeof request.id !== 'number')) return undefined;
  if (typeof request.method !== 'string') return undefined;
  const params = request.params;
  if (TASK_METHODS.has(request.method)) return request as RpcRequest;
  const augmented = typeof params === 'object' && params !== null && 'task' in params;
  return request.method === 'tools/call' && augmented ? (request as RpcRequest) : undefined;
}

export interface McpTasksDeps {
  db: Kysely<DB>;
  clock: Clock;
  invoker: Invoker;
  /** The bound tools; those of TASK_TOOLS run as tasks. */
  tools: readonly BoundTool[];
  endpointUrl: string;
  /** Aborted when the process drains: tasks/result stops waiting and answers the tool's answer so far. */
  drain: AbortSignal;
}

type End = { status: 'completed' | 'failed'; statusMessage: string | null; result: string };

export class McpTasks {
  private readonly deps: McpTasksDeps;
  private readonly repo: McpTaskRepository;
  private readonly tools: Map<string, BoundTool>;

  constructor(deps: McpTasksDeps) {
    this.deps = deps;
    this.repo = new McpTaskRepository(deps.db);
    this.tools = new Map(deps.tools.filter((tool) => isTaskTool(tool.name)).map((tool) => [tool.name, tool]));
  }

  /** The JSON-RPC response to a request of taskRequestOf; `signal` is the client's hang-up. */
  async answer(
    request: RpcRequest,
    agent: AgentPrincipal,
    call: CallContext,
    signal: AbortSignal,
  ): Promise<RpcResponse> {
    try {
      const who: TaskOwner = { organizationId: agent.organizationId, owner: agent.client?.id ?? agent.credentialId };
      return { jsonrpc: '2.0', id: request.id, result: await this.dispatch(request, { agent, who, call }, signal) };
    } catch (error) {
      if (!(error instanceof RpcError)) throw error;
      const data = error.data === undefined ? {} : { data: error.data };
      return { jsonrpc: '2.0', id: request.id, error: { code: error.code, message: error.message, ...data } };
    }
  }

  private async dispatch(request: RpcRequest, acting: Acting, signal: AbortSignal) {
    const params = request.params ?? {};
    const { who } = acting;
    if (request.method === 'tools/call') return this.create(params, acting);
    if (request.method === 'tasks/list') return this.list(params, who);
    const row = await this.load(params, who);
    switch (request.method) {
      case 'tasks/get':
        return view(row.status === 'working' ? (await this.settle(row, acting)).row : row);
      case 'tasks/result':
        return this.result(row, acting, AbortSignal.any([signal, this.deps.drain]));
      default:
        return this.cancel(row, who);
    }
  }

  private async create(params: Record<string, unknown>, acting: Acting) {
    const { who } = acting;
    const name = params.name;
    if (!isTaskTool(name))
      throw new RpcError(
        METHOD_NOT_FOUND,
        `${String(name)} does not run as a task (its execution.taskSupport is forbidden): call it without task.`,
      );
    if (typeof params.task !== 'object' || params.task === null || Array.isArray(params.task))
      throw new RpcError(INVALID_PARAMS, 'task is an object: {ttl?: milliseconds}.');
    const ttl = (params.task as { ttl?: unknown }).ttl;
    if (ttl !== undefined && (typeof ttl !== 'number' || !Number.isSafeInteger(ttl) || ttl < 0))
      throw new RpcError(INVALID_PARAMS, 'task.ttl is a whole number of milliseconds, 0 or more.');
    const args = params.arguments ?? {};
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      throw new RpcError(INVALID_PARAMS, 'arguments is an object.');
    // Nothing is stored for a call the tool would refuse: the organization's standing, the arguments.
    const tool = this.tools.get(name)!;
    try {
      admit(tool.binding.operation, acting.agent);
      validateInput(tool.validate, args, 'arguments');
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      throw refusal(error.code === 'organization_unverified' ? unverified(name) : error);
    }
    const now = this.deps.clock.now();
    const at = now.toISOString();
    await this.repo.prune(at);
    const fixed = fixSince(name, args as Record<string, unknown>, now.getTime());
    const timeout = fixed.timeout_s;
    const waitMs = typeof timeout === 'number' && Number.isInteger(timeout) && timeout > 0 ? timeout * 1000 : 0;
    const ttlMs = Math.min(MAX_TTL_MS, Math.max(waitMs + MIN_RETENTION_MS, ttl ?? DEFAULT_TTL_MS));
    const row: McpTaskRow = {
      id: `mtk_${randomBase62(24)}`,
      organization_id: who.organizationId,
      owner: who.owner,
      tool: name,
      arguments: JSON.stringify(fixed),
      status: 'working',
      status_message: null,
      result: null,
      ttl_ms: ttlMs,
      created_at: at,
      updated_at: at,
      deadline_at: new Date(now.getTime() + waitMs).toISOString(),
      expires_at: new Date(now.getTime() + ttlMs).toISOString(),
    };
    // The first look answers what is already there; a value the tool refuses (a `since` it cannot
    // read) is the call's error, not a task. Any other error is a failed task (its error, no arguments).
    const { answer, end } = await this.run(row, acting, undefined);
    const error = end?.status === 'failed' ? toolErrorBody(answer) : undefined;
    if (error?.code === 'invalid_request')
      throw new RpcError(INVALID_PARAMS, error.message ?? 'Invalid arguments.', error);
    const created = end ? { ...row, ...ended(end) } : row;
    if (!(await this.repo.insertCapped(created, MAX_WORKING_TASKS, at)))
      throw new RpcError(
        SERVER_ERROR,
        `The organization has ${MAX_WORKING_TASKS} tasks working or failed already: wait for one to end or expire, or cancel a working one.`,
        { code: 'rate_limited' },
      );
    return { task: view(created) };
  }

  private async load(params: Record<string, unknown>, who: TaskOwner): Promise<McpTaskRow> {
    const id = params.taskId;
    if (typeof id !== 'string') throw new RpcError(INVALID_PARAMS, 'taskId is a string.');
    const row = await this.find(who, id);
    if (!row) throw new RpcError(INVALID_PARAMS, `Task not found: ${id}.`);
    return row;
  }

  private async list(params: Record<string, unknown>, who: TaskOwner) {
    const cursor = params.cursor;
    let after: { createdAt: string; id: string } | undefined;
    if (cursor !== undefined) {
      const [createdAt, id] = typeof cursor === 'string' ? Buffer.from(cursor, 'base64url').toString().split('|') : [];
      if (!createdAt || !id || Number.isNaN(Date.parse(createdAt)))
        throw new RpcError(INVALID_PARAMS, 'Invalid cursor.');
      after = { createdAt, id };
    }
    const rows = await this.repo.list(who, this.deps.clock.now().toISOString(), LIST_PAGE + 1, after);
    const page = rows.slice(0, LIST_PAGE);
    const last = page.at(-1);
    const nextCursor =
      rows.length > LIST_PAGE && last ? Buffer.from(`${last.created_at}|${last.id}`).toString('base64url') : undefined;
    return { tasks: page.map(view), ...(nextCursor ? { nextCursor } : {}) };
  }

  private async result(row: McpTaskRow, acting: Acting, signal: AbortSignal) {
    let current = row;
    if (current.status === 'working') {
      const settled = await this.settle(current, acting, signal);
      current = settled.row;
      // Not settled (the client hung up, or the organization's wait slots are full): the tool's own answer, nothing stored.
      if (current.status === 'working') return withTask(settled.answer, current.id);
    }
    if (current.status === 'cancelled')
      throw new RpcError(INVALID_PARAMS, `Task ${current.id} was cancelled: it has no result.`);
    return withTask(JSON.parse(current.result!) as CallToolResult, current.id);
  }

  private async cancel(row: McpTaskRow, who: TaskOwner) {
    const ended = await this.repo.finish(row.id, {
      status: 'cancelled',
      statusMessage: 'Cancelled by the client.',
      result: null,
      at: this.deps.clock.now().toISOString(),
    });
    if (!ended) {
      const now = (await this.find(who, row.id)) ?? row;
      throw new RpcError(INVALID_PARAMS, `Cannot cancel task in terminal status: ${now.status}.`);
    }
    return view((await this.find(who, row.id)) ?? row);
  }

  private find(who: TaskOwner, id: string) {
    return this.repo.find(who, id, this.deps.clock.now().toISOString());
  }

  /** Runs a working task's tool (a look, or with `wait` the rest of its wait) and stores the end it reaches. */
  private async settle(row: McpTaskRow, acting: Acting, wait?: AbortSignal) {
    const { answer, end } = await this.run(row, acting, wait);
    if (!end) return { row, answer };
    await this.repo.finish(row.id, { ...end, at: this.deps.clock.now().toISOString() });
    // Another process or a cancel may have ended it first: the stored end is the answer.
    return { row: (await this.find(acting.who, row.id)) ?? row, answer };
  }

  /**
   * The tool's answer for the task, and the end it makes: an error fails the task (but for a full
   * set of wait slots, which is retried), the awaited answer completes it, and so does any answer
   * once the deadline is reached — the wait's timed-out answer.
   */
  private async run(row: McpTaskRow, acting: Acting, wait: AbortSignal | undefined) {
    const tool = this.tools.get(row.tool)!;
    const args = JSON.parse(row.arguments) as Record<string, unknown>;
    const leftMs = Date.parse(row.deadline_at) - this.deps.clock.now().getTime();
    const waiting = wait !== undefined && leftMs > 0;
    if (waiting) args.timeout_s = Math.min(50, Math.ceil(leftMs / 1000));
    const answer = await this.call(tool, acting, args, waiting ? wait : AbortSignal.abort());
    if (waiting && wait.aborted) return { answer, end: undefined };
    const result = JSON.stringify(answer);
    if (answer.isError) {
      const error = toolErrorBody(answer);
      if (error.code === 'rate_limited') return { answer, end: undefined };
      return { answer, end: { status: 'failed', statusMessage: error.message ?? null, result } satisfies End };
    }
    const awaited = SETTLED[row.tool as TaskTool](answer.structuredContent as never);
    if (!awaited && !waiting && leftMs > 0) return { answer, end: undefined };
    return { answer, end: { status: 'completed', statusMessage: null, result } satisfies End };
  }

  /**
   * The tool's CallToolResult, as a bounded call of it answers. A wait tool takes no key and no
   * confirmation, so its input schema is its operation's, which invoke validates.
   */
  private async call(
    tool: BoundTool,
    acting: Acting,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    try {
      const outcome = await this.deps.invoker.invoke(tool.binding.operation, acting.agent, args, {
        signal,
        resourceUrl: this.deps.endpointUrl,
      });
      const value = (outcome.replayed ? JSON.parse(outcome.body) : outcome.value) as never;
      const { structured, text } = tool.binding.result(value, false);
      return ok(structured ?? (value as Record<string, unknown>), text);
    } catch (error) {
      return asToolError(error, acting.call);
    }
  }
}

/** Who a request acts for: the agent, the task owner it is, and the HTTP request it came in. */
interface Acting {
  agent: AgentPrincipal;
  who: TaskOwner;
  call: CallContext;
}

/** The columns of an ended task: its end, and no arguments any more (nothing runs it again). */
const ended = (end: End) => ({
  status: end.status,
  status_message: end.statusMessage,
  result: end.result,
  arguments: NO_ARGUMENTS,
});

/**
 * A call refused before a task exists, as a JSON-RPC error (a client awaiting a CreateTaskResult
 * reads the message of an error; a tool result in its place it cannot parse): -32602 for bad
 * arguments, -32000 otherwise, with the tool error's body (code, message, field) as data.
 */
function refusal(error: ApiError): RpcError {
  const body = errorOf(error);
  const field = error.errors?.[0]?.field;
  const data = { ...body, ...(field === undefined ? {} : { field }) };
  return new RpcError(error.code === 'invalid_request' ? INVALID_PARAMS : SERVER_ERROR, error.message, data);
}

/** A wait's `since` default ("now") fixed at creation, so every later look waits from the same point. */
function fixSince(tool: TaskTool, args: Record<string, unknown>, nowMs: number): Record<string, unknown> {
  // The wait's length too: a call that does not say waits the tools' default.
  const fixed = { ...args, timeout_s: args.timeout_s ?? DEFAULT_WAIT_S };
  if (tool === 'wait_for_delivery' || args.since !== undefined) return fixed;
  return { ...fixed, since: idFloor('msg', nowMs) };
}

function view(row: McpTaskRow) {
  return {
    taskId: row.id,
    status: row.status,
    ...(row.status_message ? { statusMessage: row.status_message } : {}),
    createdAt: row.created_at,
    lastUpdatedAt: row.updated_at,
    ttl: row.ttl_ms,
    pollInterval: POLL_INTERVAL_MS,
  };
}

const withTask = (result: CallToolResult, taskId: string) => ({
  ...result,
  _meta: { ...result._meta, [RELATED_TASK]: { taskId } },
});

function toolErrorBody(result: CallToolResult): { code?: string; message?: string } {
  const [first] = result.content as { type: string; text?: string }[];
  return (JSON.parse(first?.text ?? '{}') as { error?: { code?: string; message?: string } }).error ?? {};
}
