// MCP Tasks, bad forms, as raw JSON-RPC: unknown, foreign, expired and ended tasks, bad ttl,
// params and cursors, a tool that does not run as a task, the cap on working tasks, and scopes.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { activeOrganization } from '../../../test/harness.ts';
import { activeLine, type Line } from '../../../test/support/messages.ts';
import { startListening, type McpTestApp } from '../../../test/support/mcp-client.ts';
import { oauthTokens } from '../../../test/support/oauth-flow.ts';
import { MAX_WORKING_TASKS } from './tasks.ts';

const MINUTE = 60_000;

describe('MCP tasks: bad input', () => {
  let t: McpTestApp;
  let line: Line;
  let id = 0;
  before(async () => {
    t = await startListening();
    line = await activeLine(t);
  });
  after(async () => t?.close());

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read arbitrary members
  const rpc = async (method: string, params: Record<string, unknown>, token = line.org.apiKey): Promise<any> => {
    id += 1;
    const response = await t.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      payload: { jsonrpc: '2.0', id, method, params },
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.id, id);
    return body;
  };
  const waitTask = async (args: Record<string, unknown> = {}, task: unknown = {}, token?: string) =>
    rpc(
      'tools/call',
      {
        name: 'wait_for_reply',
        arguments: { cell_id: line.cell.id, participant: '+14155550177', timeout_s: 30, ...args },
        task,
      },
      token,
    );
  const created = async (args: Record<string, unknown> = {}, task: unknown = {}) => {
    const body = await waitTask(args, task);
    assert.ok(body.result?.task, JSON.stringify(body));
    return body.result.task as { taskId: string; status: string; ttl: number };
  };
  const expectRpcError = (body: { error?: { code: number; message: string } }, code: number, message: RegExp) => {
    assert.equal(body.error?.code, code, JSON.stringify(body));
    assert.match(body.error!.message, message);
  };

  it('answers an unknown task id, a missing one and one that is not a string with -32602', async () => {
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      expectRpcError(await rpc(method, { taskId: 'mtk_000000000000000000000000' }), -32602, /Task not found/);
      expectRpcError(await rpc(method, {}), -32602, /taskId is a string/);
      expectRpcError(await rpc(method, { taskId: 42 }), -32602, /taskId is a string/);
    }
  });

  it("does not find another organization's task, nor list it", async () => {
    const task = await created();
    const other = await activeLine(t, {}, await activeOrganization(t));
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel'])
      expectRpcError(await rpc(method, { taskId: task.taskId }, other.org.apiKey), -32602, /Task not found/);
    assert.deepEqual((await rpc('tasks/list', {}, other.org.apiKey)).result.tasks, []);
    // Still working for its owner.
    assert.equal((await rpc('tasks/get', { taskId: task.taskId })).result.status, 'working');
  });

  it('does not find the task of another credential of the same organization (each key or OAuth client has its own)', async () => {
    const task = await created();
    const key = await t.app.inject({ method: 'POST', url: '/v1/auth/keys', headers: line.org.headers, payload: {} });
    assert.equal(key.statusCode, 201, key.body);
    expectRpcError(await rpc('tasks/get', { taskId: task.taskId }, key.json().api_key), -32602, /Task not found/);
  });

  it('keeps a task with the OAuth client that created it: a refreshed token sees it, another client does not', async () => {
    const mcp = `${t.origin}/mcp`;
    const first = await oauthTokens(t.origin, line.org.apiKey, 'messages:read', mcp);
    const body = await waitTask({}, {}, first.access);
    const taskId = body.result.task.taskId as string;
    const refreshed = await fetch(`${t.origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: first.refresh,
        client_id: first.clientId,
        resource: mcp,
      }),
    });
    assert.equal(refreshed.status, 200);
    const second = ((await refreshed.json()) as { access_token: string }).access_token;
    assert.notEqual(second, first.access);
    assert.equal((await rpc('tasks/get', { taskId }, second)).result.status, 'working');
    const otherClient = await oauthTokens(t.origin, line.org.apiKey, 'messages:read', mcp);
    expectRpcError(await rpc('tasks/get', { taskId }, otherClient.access), -32602, /Task not found/);
    expectRpcError(await rpc('tasks/get', { taskId }), -32602, /Task not found/);
  });

  it('forgets a task after its ttl, and prunes it on the next creation', async () => {
    const task = await created({}, { ttl: 0 });
    // A ttl shorter than the wait and a minute is raised to that.
    assert.equal(task.ttl, 30_000 + MINUTE);
    t.clock.advance(task.ttl);
    expectRpcError(await rpc('tasks/get', { taskId: task.taskId }), -32602, /Task not found/);
    expectRpcError(await rpc('tasks/result', { taskId: task.taskId }), -32602, /Task not found/);
    assert.ok(!(await rpc('tasks/list', {})).result.tasks.some((x: { taskId: string }) => x.taskId === task.taskId));
    await created();
    const { rows } = await sql<{ id: string }>`select id from mcp_tasks where id = ${task.taskId}`.execute(
      t.database.db,
    );
    assert.deepEqual(rows, []);
  });

  it('completes a task at its deadline with the timed-out answer of the wait', async () => {
    const task = await created({ timeout_s: 5 });
    t.clock.advance(5_000);
    const got = await rpc('tasks/get', { taskId: task.taskId });
    assert.equal(got.result.status, 'completed');
    const result = await rpc('tasks/result', { taskId: task.taskId });
    assert.equal(result.result.structuredContent.message, null);
    assert.match(result.result.structuredContent.next_since, /^msg_/);
  });

  it('refuses to cancel an ended task, and answers a cancelled one has no result', async () => {
    const task = await created();
    const cancelled = await rpc('tasks/cancel', { taskId: task.taskId });
    assert.equal(cancelled.result.status, 'cancelled');
    assert.equal(cancelled.result.statusMessage, 'Cancelled by the client.');
    expectRpcError(await rpc('tasks/cancel', { taskId: task.taskId }), -32602, /terminal status: cancelled/);
    expectRpcError(await rpc('tasks/result', { taskId: task.taskId }), -32602, /was cancelled: it has no result/);
    assert.equal((await rpc('tasks/get', { taskId: task.taskId })).result.status, 'cancelled');
    const foreign = await activeLine(t, {}, await activeOrganization(t));
    const failed = await created({ cell_id: foreign.cell.id });
    assert.equal(failed.status, 'failed');
    expectRpcError(await rpc('tasks/cancel', { taskId: failed.taskId }), -32602, /terminal status: failed/);
  });

  it('refuses a ttl that is not a whole number of milliseconds, and lowers one over 24 hours', async () => {
    for (const ttl of [-1, 1.5, '60000', null, 2 ** 60])
      expectRpcError(await waitTask({}, { ttl }), -32602, /task.ttl is a whole number of milliseconds/);
    assert.equal((await created({}, { ttl: 10 ** 12 })).ttl, 24 * 60 * MINUTE);
    assert.equal((await created({}, { ttl: 2 * 60 * MINUTE })).ttl, 2 * 60 * MINUTE);
    assert.equal((await created()).ttl, 60 * MINUTE);
  });

  it('refuses a task that is not an object and arguments that are not one', async () => {
    for (const task of [5, 'soon', null, [1]]) expectRpcError(await waitTask({}, task), -32602, /task is an object/);
    const body = await rpc('tools/call', { name: 'wait_for_code', arguments: [line.cell.id], task: {} });
    expectRpcError(body, -32602, /arguments is an object/);
  });

  it('answers -32601 for a task-augmented call of a tool that does not run as a task, and runs nothing', async () => {
    const body = await rpc('tools/call', {
      name: 'send_message',
      arguments: { cell_id: line.cell.id, to: '+14155550100', body: 'x', idempotency_key: 'task-send' },
      task: {},
    });
    expectRpcError(body, -32601, /send_message does not run as a task/);
    const messages = await t.app.inject({ url: `/v1/cells/${line.cell.id}/messages`, headers: line.org.headers });
    assert.deepEqual(messages.json().messages, []);
    expectRpcError(await rpc('tools/call', { name: 'no_such_tool', task: {} }), -32601, /does not run as a task/);
  });

  it('refuses a cursor it did not give, and pages tasks/list with the one it gave', async () => {
    expectRpcError(await rpc('tasks/list', { cursor: 'not-a-cursor' }), -32602, /Invalid cursor/);
    expectRpcError(await rpc('tasks/list', { cursor: 7 }), -32602, /Invalid cursor/);
    const own = await activeLine(t, {}, await activeOrganization(t));
    const ids: string[] = [];
    for (let n = 0; n < 52; n += 1) {
      t.clock.advance(1);
      const body = await rpc(
        'tools/call',
        { name: 'wait_for_code', arguments: { cell_id: own.cell.id, timeout_s: 1 }, task: {} },
        own.org.apiKey,
      );
      ids.push(body.result.task.taskId);
    }
    const first = (await rpc('tasks/list', {}, own.org.apiKey)).result;
    assert.equal(first.tasks.length, 50);
    const second = (await rpc('tasks/list', { cursor: first.nextCursor }, own.org.apiKey)).result;
    assert.equal(second.nextCursor, undefined);
    assert.deepEqual(
      [...first.tasks, ...second.tasks].map((task: { taskId: string }) => task.taskId),
      ids.reverse(),
    );
  });

  it(`refuses a task beyond ${MAX_WORKING_TASKS} working ones of the organization (-32000, rate_limited); a cancel makes room`, async () => {
    const busy = await activeLine(t, {}, await activeOrganization(t));
    const create = () =>
      rpc(
        'tools/call',
        { name: 'wait_for_code', arguments: { cell_id: busy.cell.id, timeout_s: 50 }, task: {} },
        busy.org.apiKey,
      );
    const first = (await create()).result.task.taskId as string;
    for (let n = 1; n < MAX_WORKING_TASKS; n += 1) assert.equal((await create()).result.task.status, 'working');
    const refused = await create();
    expectRpcError(refused, -32000, /has 100 tasks working or failed already/);
    assert.deepEqual(refused.error.data, { code: 'rate_limited' });
    // Ending one makes room.
    await rpc('tasks/cancel', { taskId: first }, busy.org.apiKey);
    assert.equal((await create()).result.task.status, 'working');
  });

  it('answers tasks/* with HTTP 403 insufficient_scope to a token without messages:read', async () => {
    const tokens = await oauthTokens(t.origin, line.org.apiKey, 'cells:read', `${t.origin}/mcp`);
    const response = await t.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        authorization: `Bearer ${tokens.access}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      payload: { jsonrpc: '2.0', id: 1, method: 'tasks/list', params: {} },
    });
    assert.equal(response.statusCode, 403);
    assert.match(
      String(response.headers['www-authenticate']),
      /error="insufficient_scope", scope="cells:read messages:read"/,
    );
  });
});
