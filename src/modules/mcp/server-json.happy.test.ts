// server.json (the MCP Registry's description of this server) against the registry's published
// schema, vendored in test/fixtures/mcp-registry/ (source:
// https://github.com/modelcontextprotocol/registry/blob/main/docs/reference/server-json/server.schema.json,
// published as https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { VERSION } from '../system/routes.ts';

const read = (path: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8')) as Record<string, unknown>;

const schema = read('test/fixtures/mcp-registry/server.schema.json');
const server = read('server.json');

function validator() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv);
  return ajv.compile(schema);
}

describe('server.json for the MCP Registry', () => {
  it('is valid against the registry schema it names', () => {
    const validate = validator();
    assert.equal(validate(server), true, JSON.stringify(validate.errors));
    assert.equal(server.$schema, schema.$id);
  });

  it('names the streamable-http endpoint /mcp with its {host} variable documented, and the running version', () => {
    assert.equal(server.version, VERSION);
    const [remote] = server.remotes as { type: string; url: string }[];
    assert.equal(remote.type, 'streamable-http');
    assert.equal(remote.url, 'https://{host}/mcp');
    const meta = (server._meta as Record<string, { urlTemplate: Record<string, string>; auth: string }>)[
      'io.modelcontextprotocol.registry/publisher-provided'
    ];
    assert.match(meta.urlTemplate.host, /host name/);
    assert.match(meta.auth, /OAuth/);
  });

  it('the schema refuses what the registry refuses (the test can fail)', () => {
    const validate = validator();
    assert.equal(validate({ ...server, name: 'no-slash' }), false);
    assert.equal(validate({ ...server, description: 'x'.repeat(101) }), false);
    assert.equal(validate({ ...server, remotes: [{ type: 'websocket', url: 'wss://x/mcp' }] }), false);
    const { version: _version, ...unversioned } = server;
    assert.equal(validate(unversioned), false);
  });
});
