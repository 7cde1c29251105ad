// Two real server processes on one PostgreSQL database: an MCP task created through process A is
// followed, settled and answered by process B (a task is a row, not a process's memory).
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  activeOrganizationOn,
  call,
  PROCESS_ADMIN_TOKEN,
  skipUnlessPostgres,
  type ChildServer,
} from '../../../test/processes.ts';
import { useServerProcesses } from '../../../test/support/server-processes.ts';
import { uniquePhoneNumber } from '../../../test/support/devices.ts';

describe('MCP tasks across two processes on one PostgreSQL database', { skip: skipUnlessPostgres }, () => {
  const servers = useServerProcesses('cellgate_mcp_tasks_mp');
  let a: ChildServer;
  let b: ChildServer;
  let apiKey: string;
  let cellId: string;
  let deviceKey: string;
  let id = 0;

  before(async () => {
    ({ a, b } = servers);
    apiKey = (await activeOrganizationOn(a, 'tasks-mp')).api_key;
    const device = await call(a, 'POST', '/v1/admin/devices', PROCESS_ADMIN_TOKEN, {
      phone_number: uniquePhoneNumber(),
    });
    deviceKey = device.device_key;
    const cell = await call(a, 'POST', '/v1/cells', apiKey, { display_name: 'agent line' });
    assert.equal(cell.status, 'active');
    cellId = cell.id;
  });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read arbitrary members
  const rpc = async (server: ChildServer, method: string, params: Record<string, unknown>): Promise<any> => {
    id += 1;
    const response = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    });
    assert.equal(response.status, 200);
    return response.json();
  };
  /** A text the phone received, uploaded through `server`. */
  const codeText = (server: ChildServer, body: string) =>
    fetch(`${server.url}/v1/device/messages/inbound`, {
      method: 'POST',
      headers: { 'x-phone-key': deviceKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        device_message_id: `sms-${id}-${Date.now()}`,
        received_at: new Date().toISOString(),
        from: '+18885550142',
        body,
      }),
    });

  const createCodeTask = async (server: ChildServer) => {
    const created = await rpc(server, 'tools/call', {
      name: 'wait_for_code',
      arguments: { cell_id: cellId, timeout_s: 30 },
      task: {},
    });
    assert.equal(created.result.task.status, 'working', JSON.stringify(created));
    return created.result.task.taskId as string;
  };

  it('settles in B, on tasks/get, a task created in A, and A answers its result', async () => {
    const taskId = await createCodeTask(a);
    assert.equal((await rpc(b, 'tasks/get', { taskId })).result.status, 'working');
    await new Promise((resolve) => setTimeout(resolve, 5)); // the text comes after the task's since
    assert.equal((await codeText(b, 'Your Acme verification code is 118822.')).status, 201);
    assert.equal((await rpc(b, 'tasks/get', { taskId })).result.status, 'completed');
    const result = await rpc(a, 'tasks/result', { taskId });
    assert.equal(result.result.structuredContent.code.code, '118822');
  });

  it('answers in B a tasks/result waiting when the code reaches A, and A then reads the task completed', async () => {
    const taskId = await createCodeTask(a);
    const waiting = rpc(b, 'tasks/result', { taskId });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    assert.equal((await codeText(a, 'Your Acme verification code is 447120.')).status, 201);
    const result = await waiting;
    assert.equal(result.result.structuredContent.code.code, '447120');
    assert.ok(Date.now() - started < 5000, `B answered after ${Date.now() - started} ms`);
    const got = await rpc(a, 'tasks/get', { taskId });
    assert.equal(got.result.status, 'completed');
  });
});
