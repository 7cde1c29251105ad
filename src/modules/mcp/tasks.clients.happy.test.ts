// The waits as MCP Tasks (2025-11-25), through the v1 SDK client's experimental Tasks API: the
// task is created at once, polled with tasks/get, and its result is the tool's own answer. The v2
// client (2.4.0) reads the declarations but has no Tasks API (its typed surface leaves the task
// methods out): it keeps the bounded waits.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { activeOrganization } from '../../../test/harness.ts';
import { activeLine, claim, inbound, queued, report, type Line } from '../../../test/support/messages.ts';
import {
  connectV1,
  mcpClient,
  startListening,
  structured,
  toolErrorOf,
  type McpTestApp,
  useMcpClient,
} from '../../../test/support/mcp-client.ts';
import { TASK_TOOLS } from './tasks.ts';

/** Every message of a task-augmented call, in order, until the stream ends. */
async function drain(stream: AsyncGenerator<{ type: string }>) {
  const messages: any[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any -- assertions read members
  for await (const message of stream) messages.push(message);
  return messages;
}

describe('the waits as MCP tasks through the v1 SDK client', () => {
  let line: Line;
  const { t, client } = useMcpClient(connectV1, async (app) => {
    line = await activeLine(app);
    return line.org.apiKey;
  });

  const callAsTask = (name: string, args: Record<string, unknown>) =>
    client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, { task: {} });

  it('declares the tasks capability and taskSupport optional on the three waits only', async () => {
    const capabilities = client.getServerCapabilities();
    assert.deepEqual(capabilities?.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await client.listTools();
    const tasked = tools.filter((tool) => tool.execution?.taskSupport === 'optional').map((tool) => tool.name);
    assert.deepEqual(tasked.sort(), [...TASK_TOOLS].sort());
    assert.deepEqual(
      tools.filter((tool) => tool.execution?.taskSupport !== undefined && !tasked.includes(tool.name)),
      [],
    );
  });

  it('wait_for_reply as a task: working at once, completed with the reply that arrives', async () => {
    const stream = callAsTask('wait_for_reply', { cell_id: line.cell.id, timeout_s: 30 });
    const created = await stream.next();
    assert.equal(created.value?.type, 'taskCreated');
    const task = (created.value as { task: { taskId: string; status: string; ttl: number; pollInterval: number } })
      .task;
    assert.equal(task.status, 'working');
    assert.match(task.taskId, /^mtk_[0-9A-Za-z]{24}$/);
    assert.equal(task.pollInterval, 1000);
    t.clock.advance(1000);
    const upload = await inbound(t, line, { from: '+14155550123', body: 'Sounds good' });
    assert.equal(upload.statusCode, 201);
    const rest = await drain(stream);
    const result = rest.at(-1);
    assert.equal(result.type, 'result', JSON.stringify(rest));
    assert.equal(result.result.structuredContent.message.body, 'Sounds good');
    assert.equal(result.result.structuredContent.next_since, upload.json().id);
    assert.equal(rest.at(-2).task.status, 'completed');
    // The result stays there to be read again, for the task's ttl.
    const again = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    assert.deepEqual(again.structuredContent, result.result.structuredContent);
    assert.deepEqual(again._meta?.['io.modelcontextprotocol/related-task'], { taskId: task.taskId });
  });

  it('wait_for_code as a task: a code already there completes the task as it is created', async () => {
    const since = t.clock.now().toISOString();
    t.clock.advance(1000);
    await inbound(t, line, { from: '+16505550100', body: 'Your verification code is 551903' });
    const messages = await drain(callAsTask('wait_for_code', { cell_id: line.cell.id, since, timeout_s: 10 }));
    assert.equal(messages[0].type, 'taskCreated');
    assert.equal(messages[0].task.status, 'completed');
    assert.equal(messages.at(-1).result.structuredContent.code.code, '551903');
  });

  it('wait_for_delivery as a task: completed when the phone reports delivery', async () => {
    const message = await queued(t, line, { to: '+14155550124', body: 'Your table is ready' });
    const stream = callAsTask('wait_for_delivery', { message_id: message.id, timeout_s: 30 });
    assert.equal((await stream.next()).value?.type, 'taskCreated');
    await claim(t, line);
    assert.equal((await report(t, line, message.id, { event: 'sent' })).statusCode, 200);
    assert.equal((await report(t, line, message.id, { event: 'delivered' })).statusCode, 200);
    const result = (await drain(stream)).at(-1);
    assert.equal(result.result.structuredContent.final, true);
    assert.equal(result.result.structuredContent.message.status, 'delivered');
  });

  it('tasks/result waits out a working task and answers the wait timed out, as the bounded call does', async () => {
    const stream = callAsTask('wait_for_reply', { cell_id: line.cell.id, participant: '+14155550999', timeout_s: 1 });
    const created = (await stream.next()).value as { task: { taskId: string } };
    const result = await client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
    assert.equal(result.isError, undefined);
    assert.equal((result.structuredContent as { message: unknown }).message, null);
    assert.equal((await client.experimental.tasks.getTask(created.task.taskId)).status, 'completed');
    await stream.return(undefined);
  });

  it('lists the tasks newest first, and cancels a working one, which then has no result', async () => {
    t.clock.advance(1000);
    const stream = callAsTask('wait_for_reply', { cell_id: line.cell.id, participant: '+14155550998', timeout_s: 50 });
    const { taskId } = ((await stream.next()).value as { task: { taskId: string } }).task;
    const { tasks } = await client.experimental.tasks.listTasks();
    assert.equal(tasks[0].taskId, taskId);
    assert.ok(tasks.length >= 5, `${tasks.length} tasks`);
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    assert.equal(cancelled.status, 'cancelled');
    const end = (await drain(stream)).at(-1);
    assert.equal(end.type, 'error');
    assert.match(end.error.message, /cancelled/);
    await assert.rejects(client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema), /has no result/);
  });

  it('fails a task whose call fails, its result the tool error of contract §10 (isError, no structuredContent); bad arguments make no task', async () => {
    const other = await activeLine(t, {}, await activeOrganization(t));
    const messages = await drain(callAsTask('wait_for_code', { cell_id: other.cell.id, timeout_s: 5 }));
    assert.equal(messages[0].task.status, 'failed');
    assert.equal(messages[0].task.statusMessage, 'No such cell.');
    assert.equal(messages.at(-1).type, 'error');
    const result = await client.experimental.tasks.getTaskResult(messages[0].task.taskId, CallToolResultSchema);
    assert.equal(toolErrorOf(result).code, 'not_found');
    // Arguments the tool refuses make no task: the call's error names the field.
    const bad = await drain(callAsTask('wait_for_reply', { cell_id: line.cell.id, since: 'yesterday', timeout_s: 5 }));
    assert.equal(bad.length, 1);
    assert.equal(bad[0].type, 'error');
    assert.match(bad[0].error.message, /since/);
  });

  it('answers a wait called without task as the bounded wait it always was', async () => {
    t.clock.advance(1000);
    const since = t.clock.now().toISOString();
    t.clock.advance(1000);
    await inbound(t, line, { from: '+14155550125', body: 'Plain call' });
    const result = await client.callTool({
      name: 'wait_for_reply',
      arguments: { cell_id: line.cell.id, since, timeout_s: 1 },
    });
    assert.equal(structured(result).message.body, 'Plain call');
  });
});

describe('the v2 SDK client and tasks', () => {
  let t: McpTestApp;
  let line: Line;
  before(async () => {
    t = await startListening();
    line = await activeLine(t);
  });
  after(async () => t?.close());

  it('reads the same declarations, and having no Tasks API, calls the waits bounded', async () => {
    const client = await mcpClient(t, line.org.apiKey);
    try {
      assert.ok((client.getServerCapabilities() as { tasks?: unknown } | undefined)?.tasks);
      const { tools } = await client.listTools();
      const tasked = tools.filter((tool) => tool.execution?.taskSupport === 'optional').map((tool) => tool.name);
      assert.deepEqual(tasked.sort(), [...TASK_TOOLS].sort());
      const result = await client.callTool({
        name: 'wait_for_code',
        arguments: { cell_id: line.cell.id, timeout_s: 1 },
      });
      assert.equal(structured(result).code, null);
    } finally {
      await client.close();
    }
  });
});
