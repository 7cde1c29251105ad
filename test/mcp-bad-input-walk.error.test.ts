// Every MCP tool of tools/list with bad arguments of every kind (issue 33 §10; contract §10: a
// tool validates its input exactly as its REST twin, text safety included): NUL bytes, unpaired
// surrogates and over-long strings in each string argument, a wrong JSON type in each argument,
// unknown fields. Each answer is a tool error `invalid_request` naming the field — never a
// JSON-RPC error, a 5xx or a driver's words — and nothing is stored.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { activeOrganization, useApp } from './harness.ts';
import { activeLine } from './support/messages.ts';

const t = useApp();

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
}

/** A value of another JSON type than the schema's. */
function wrongType(schema: JsonSchema): unknown {
  switch (schema.type) {
    case 'string':
      return 12345;
    case 'integer':
    case 'number':
      return '12';
    case 'boolean':
      return 'yes';
    case 'array':
      return { a: 1 };
    case 'object':
      return ['x'];
    default:
      return { nested: { deeper: [1] } };
  }
}

/** `text` where the schema takes a string: itself, or inside an array of strings. */
function stringCarrying(schema: JsonSchema, text: string): unknown {
  if (schema.type === 'array' && schema.items?.type === 'string') return [text];
  if (schema.type === 'string' || schema.anyOf?.some((s) => s.type === 'string')) return text;
  return undefined;
}

/** The bad values of one argument: [what, value, the field an error must name]. */
function badValues(name: string, schema: JsonSchema): [string, unknown, string][] {
  const cases: [string, unknown, string][] = [['wrong type', wrongType(schema), name]];
  const inArray = schema.type === 'array' ? `${name}.0` : name;
  for (const [what, text] of [
    ['NUL byte', 'ab\u0000cd'],
    ['unpaired surrogate', 'ab\ud800cd'],
    ['control character', 'ab\u001bcd'],
    ['over-long string', 'x'.repeat(20_000)],
  ] as const) {
    const value = stringCarrying(schema, text);
    if (value !== undefined) cases.push([what, value, inArray]);
  }
  return cases;
}

async function tableCounts(): Promise<Record<string, number>> {
  const db = t.database.db;
  const tables = (await db.introspection.getTables()).map((table) => table.name).filter((n) => !n.startsWith('kysely'));
  const counts: Record<string, number> = {};
  for (const name of tables)
    counts[name] = Number(
      (await sql<{ n: number }>`select count(*) as n from ${sql.table(name)}`.execute(db)).rows[0].n,
    );
  return counts;
}

it('answers bad arguments of every MCP tool with a tool error invalid_request naming the field, storing nothing', async () => {
  const org = await activeOrganization(t);
  const line = await activeLine(t, {}, org);
  let id = 0;
  const rpc = async (method: string, params: Record<string, unknown>) => {
    id += 1;
    const response = await t.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        authorization: `Bearer ${org.apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      payload: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    });
    return response;
  };
  /** The JSON-RPC answer, sent as JSON or as the data of one server-sent event. */
  const answerOf = (text: string): unknown => {
    const data = text.startsWith('{')
      ? text
      : text
          .split('\n')
          .find((l) => l.startsWith('data: '))
          ?.slice(6);
    return JSON.parse(data ?? 'null');
  };
  const listed = answerOf((await rpc('tools/list', {})).body) as {
    result: { tools: { name: string; inputSchema: JsonSchema }[] };
  };
  const tools = listed.result.tools;
  assert.ok(tools.length >= 16, `${tools.length} tools`);
  const before = await tableCounts();
  const problems: string[] = [];
  let calls = 0;
  for (const tool of tools) {
    const properties = Object.entries(tool.inputSchema.properties ?? {});
    const cases: [string, Record<string, unknown>, string, string?][] = [
      ['unknown field', { unknown_field_x: 'x' }, 'unknown_field_x', 'unknown_field'],
      ['unknown field with a NUL in its name', { 'a\u0000b': 1 }, 'a\\u0000b', 'invalid_character'],
    ];
    for (const [name, schema] of properties)
      for (const [what, value, field] of badValues(name, schema))
        // Every other argument a good one would be is left out: the error must name this one all the same.
        cases.push([
          `${name}: ${what}`,
          { cell_id: line.cell.id, [name]: value },
          field,
          what.startsWith('NUL') || what.startsWith('unpaired') || what.startsWith('control')
            ? 'invalid_character'
            : undefined,
        ]);
    for (const [what, args, field, code] of cases) {
      calls += 1;
      const said = `${tool.name} ${what}`;
      const response = await rpc('tools/call', { name: tool.name, arguments: args });
      if (response.statusCode !== 200) {
        problems.push(`${said}: HTTP ${response.statusCode} ${response.body.slice(0, 200)}`);
        continue;
      }
      const body = answerOf(response.body) as {
        result?: { isError?: boolean; structuredContent?: unknown; content: { text: string }[] };
        error?: unknown;
      };
      if (!body.result?.isError || body.result.structuredContent !== undefined) {
        problems.push(`${said}: not a tool error: ${response.body.slice(0, 200)}`);
        continue;
      }
      const error = (JSON.parse(body.result.content[0].text) as { error: Record<string, unknown> }).error;
      const errors = (error.errors ?? []) as { field: string; code: string }[];
      const named = errors.find((e) => e.field === field);
      if (error.code !== 'invalid_request' || !named || (code && named.code !== code))
        problems.push(`${said}: ${JSON.stringify(error).slice(0, 300)}`);
      if (/byte sequence|UTF8|sqlite|postgres|syntax/i.test(response.body)) problems.push(`${said}: driver words`);
    }
  }
  assert.ok(calls > 150, `${calls} calls`);
  assert.deepEqual(problems, []);
  assert.deepEqual(await tableCounts(), before, 'nothing stored');
  assert.equal((await t.app.inject({ url: '/health' })).statusCode, 200);
});
