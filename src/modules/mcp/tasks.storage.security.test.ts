// What MCP tasks may store (issue 33 §1, §5; contract §2 "Stored resources"): a call the tool
// would refuse stores nothing (bad arguments, an unverified organization), a failed task keeps its
// error and never its arguments, failed tasks count against the cap, and the cap is exact under
// concurrent creations (on PostgreSQL too).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { activeOrganization, signUp } from '../../../test/harness.ts';
import { activeLine, type Line } from '../../../test/support/messages.ts';
import { startListening, type McpTestApp } from '../../../test/support/mcp-client.ts';
import { MAX_WORKING_TASKS } from './tasks.ts';

describe('MCP tasks: bounded storage', () => {
  let t: McpTestApp;
  let line: Line;
  let id = 0;
  before(async () => {
    t = await startListening();
    line = await activeLine(t);
  });
  after(async () => t?.close());

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read arbitrary members
  const rpc = async (params: Record<string, unknown>, token = line.org.apiKey): Promise<any> => {
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
      payload: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { ...params, task: {} } }),
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };
  const rows = async (organizationId: string) =>
    (
      await sql<{ status: string; arguments: string; result: string | null }>`
        select status, arguments, result from mcp_tasks where organization_id = ${organizationId}`.execute(
        t.database.db,
      )
    ).rows;

  it('refuses arguments the tool refuses with -32602 naming the field, and stores no task', async () => {
    const org = await activeOrganization(t);
    const own = await activeLine(t, {}, org);
    const cell_id = own.cell.id;
    const cases: [Record<string, unknown>, string, string][] = [
      [{ cell_id, nonsense: 'x'.repeat(10_000) }, 'nonsense', 'unknown_field'],
      [{ cell_id, since: 'x'.repeat(100_000) }, 'since', 'too_long'],
      [{ cell_id, participant: '+1415555\u00000123' }, 'participant', 'invalid_character'],
      [{ cell_id, since: 'msg_\ud800' }, 'since', 'invalid_character'],
      [{ cell_id, timeout_s: '30' }, 'timeout_s', 'invalid_type'],
      [{ cell_id: 7 }, 'cell_id', 'invalid_type'],
      [{}, 'cell_id', 'required'],
      // Read by the tool, not the schema: refused all the same.
      [{ cell_id, since: 'yesterday' }, 'since', 'invalid_format'],
    ];
    for (const [args, field] of cases) {
      const body = await rpc({ name: 'wait_for_reply', arguments: args }, org.apiKey);
      assert.equal(body.error?.code, -32602, JSON.stringify(body).slice(0, 300));
      assert.equal(body.error.data.code, 'invalid_request');
      assert.equal(body.error.data.field, field, JSON.stringify(body.error));
      assert.ok(JSON.stringify(body).length < 2_000, 'the refusal does not echo the arguments');
    }
    for (const [args, field, code] of cases.slice(0, 6)) {
      const body = await rpc({ name: 'wait_for_reply', arguments: args }, org.apiKey);
      assert.equal(body.error.data.errors[0].code, code, `${field}: ${JSON.stringify(body.error)}`);
    }
    assert.deepEqual(await rows(org.organizationId), []);
  });

  it('refuses a task to an unverified organization (organization_unverified), storing nothing', async () => {
    const org = await signUp(t);
    const body = await rpc(
      { name: 'wait_for_reply', arguments: { cell_id: line.cell.id, since: 'x'.repeat(60) } },
      org.apiKey,
    );
    assert.equal(body.error?.code, -32000, JSON.stringify(body));
    assert.equal(body.error.data.code, 'organization_unverified');
    assert.deepEqual(await rows(org.organizationId), []);
  });

  it(`keeps a failed task's error, never its arguments, and counts failed tasks in the cap of ${MAX_WORKING_TASKS}`, async () => {
    const org = await activeOrganization(t);
    // Another organization's cell: each call passes validation and fails (not_found) at its first look.
    const fail = () =>
      rpc({ name: 'wait_for_code', arguments: { cell_id: line.cell.id, service: 'x'.repeat(50) } }, org.apiKey);
    for (let n = 0; n < MAX_WORKING_TASKS; n += 1) assert.equal((await fail()).result?.task.status, 'failed');
    const refused = await fail();
    assert.equal(refused.error?.code, -32000, JSON.stringify(refused));
    assert.equal(refused.error.data.code, 'rate_limited');
    const stored = await rows(org.organizationId);
    assert.equal(stored.length, MAX_WORKING_TASKS);
    for (const row of stored) {
      assert.equal(row.status, 'failed');
      assert.equal(row.arguments, 'null');
      assert.match(row.result ?? '', /not_found/);
      assert.doesNotMatch(row.result ?? '', /xxxxx/);
    }
  });

  it(`stores exactly ${MAX_WORKING_TASKS} tasks of 130 started at once`, async () => {
    const busy = await activeLine(t, {}, await activeOrganization(t));
    const answers = await Promise.all(
      Array.from({ length: 130 }, () =>
        rpc({ name: 'wait_for_code', arguments: { cell_id: busy.cell.id, timeout_s: 50 } }, busy.org.apiKey),
      ),
    );
    const started = answers.filter((body) => body.result?.task?.status === 'working');
    const refused = answers.filter((body) => body.error?.data?.code === 'rate_limited');
    assert.equal(started.length, MAX_WORKING_TASKS);
    assert.equal(refused.length, 130 - MAX_WORKING_TASKS);
    assert.equal((await rows(busy.org.organizationId)).length, MAX_WORKING_TASKS);
  });
});
