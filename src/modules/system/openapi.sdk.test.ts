// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
// The OpenAPI document as SDK generators and linters see it: Redocly's recommended rules
// (redocly.yaml) find nothing to report, and @hey-api/openapi-ts generates a TypeScript client
// that type-checks against a short program sending a message with an Idempotency-Key. Offline:
// every tool runs from node_modules, under this Node, in .tmp/sdk-<pid> (git-ignored).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startApp } from '../../../test/harness.ts';

const root = resolve(import.meta.dirname, '../../..');
const work = join(root, '.tmp', `sdk-${process.pid}`);

function run(script: string, args: string[]) {
  return spawnSync(process.execPath, [join(root, 'node_modules', script), ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
  });
}

const PROGRAM = `import { createClient } from './client/client/index.js';
import { getCell, sendMessage, type Cell, type Message, type Problem } from './client/index.js';

const client = createClient({ baseUrl: 'https://api.cellgate.test', auth: () => 'cg_live_example' });

export async function sendFrom(cell: Cell): Promise<Message | Problem['code'] | undefined> {
  const result = await sendMessage({
    client,
    path: { cell_id: cell.id },
    headers: { 'Idempotency-Key': 'order-4711-confirmation' },
    body: { to: '+14155550199', body: 'Your table for two is ready.' },
  });
  if (result.error) return result.error.code;
  const status: Message['status'] | undefined = result.data?.status;
  return status === 'queued' ? result.data : undefined;
}

export async function reread(cell: Cell): Promise<Cell['status'] | undefined> {
  return (await getCell({ client, path: { id: cell.id } })).data?.status;
}

// The header and the body are typed, not free-form.
// @ts-expect-error Idempotency-Key is a string
void sendMessage({ client, path: { cell_id: 'cell_x' }, headers: { 'Idempotency-Key': 42 }, body: { to: '+14155550199', body: 'x' } });
// @ts-expect-error a send needs its body
void sendMessage({ client, path: { cell_id: 'cell_x' } });
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'es2024',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    lib: ['es2024', 'dom'],
  },
  files: ['program.ts'],
};

describe('OpenAPI document for SDK generators', () => {
  const documentPath = join(work, 'openapi.json');
  before(async () => {
    mkdirSync(work, { recursive: true });
    const t = await startApp({ env: { CELLGATE_BASE_URL: 'https://api.cellgate.test' } });
    try {
      const response = await t.app.inject({ url: '/openapi.json' });
      assert.equal(response.statusCode, 200);
      writeFileSync(documentPath, response.body);
    } finally {
      await t.close();
    }
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it("passes Redocly's recommended rules without a warning or an error", () => {
    const lint = run('@redocly/cli/bin/cli.js', [
      'lint',
      '--config',
      join(root, 'redocly.yaml'),
      '--format',
      'json',
      documentPath,
    ]);
    const report = JSON.parse(lint.stdout || '{}') as {
      totals?: { errors: number; warnings: number };
      problems?: unknown[];
    };
    assert.ok(report.totals, `redocly printed no report: ${lint.stderr}`);
    assert.deepEqual(
      report.totals && { errors: report.totals.errors, warnings: report.totals.warnings },
      { errors: 0, warnings: 0 },
      JSON.stringify(report.problems, null, 2)?.slice(0, 4000),
    );
    assert.equal(lint.status, 0);
  });

  it('generates a TypeScript client whose sendMessage takes an Idempotency-Key and whose Cell is a named type', () => {
    const generate = run('@hey-api/openapi-ts/bin/run.js', [
      '-i',
      documentPath,
      '-o',
      join(work, 'client'),
      '-c',
      '@hey-api/client-fetch',
      '--no-log-file',
      '--silent',
    ]);
    assert.equal(generate.status, 0, `${generate.stdout}\n${generate.stderr}`);
    writeFileSync(join(work, 'program.ts'), PROGRAM);
    writeFileSync(join(work, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    const check = run('typescript/bin/tsc', ['-p', join(work, 'tsconfig.json')]);
    assert.equal(check.status, 0, `${check.stdout}\n${check.stderr}`);
  });
});
