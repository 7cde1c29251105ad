// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
// The README, followed in order: its ```sh blocks run one after another in one bash (so the
// variables one block sets are there for the next), against a service started as the README
// starts it (`npm start`, in the background, on a temporary SQLite file and a free port written
// over the README's 8080). Each block must end with exit status 0. At the end the npm process is
// killed, and the server under it must drain and exit (npm start execs it).
//
// Markers, an HTML comment on the line before a block:
//   <!-- readme-test: skip (why) -->      not run: it installs, runs for minutes or until Ctrl-C,
//                                          or holds placeholders;
//   <!-- readme-test: starts-service -->  its `npm start` line runs in the background, and the
//                                          next block waits until GET /health answers.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../bench/lib.ts';

const ROOT = join(import.meta.dirname, '..');

export interface ReadmeBlock {
  line: number;
  code: string;
  marker: 'skip' | 'starts-service' | null;
}

/** The README's ```sh blocks in order, each with the marker on the line before it. */
export function shellBlocks(markdown: string): ReadmeBlock[] {
  const blocks: ReadmeBlock[] = [];
  const pattern = /(?:<!-- readme-test: ([a-z-]+)[^>]*-->\n)?```sh\n([\s\S]*?)```/g;
  for (const match of markdown.matchAll(pattern)) {
    const marker = match[1] ?? null;
    if (marker !== null && marker !== 'skip' && marker !== 'starts-service')
      throw new Error(`unknown readme-test marker "${marker}"`);
    blocks.push({ line: markdown.slice(0, match.index).split('\n').length, code: match[2], marker });
  }
  return blocks;
}

/** The bash script that runs the blocks in order, printing `::start <line>` before each and `::block <line> 0 at <elapsed> s` after. */
function script(blocks: ReadmeBlock[], port: number, dir: string): string {
  // A failed block ends the shell; what it started in the background goes with it.
  const parts = ['set -o pipefail', "trap 'kill $(jobs -p) 2> /dev/null' EXIT", `cd ${JSON.stringify(ROOT)}`];
  blocks.forEach((block, index) => {
    let code = block.code.replaceAll(':8080', `:${port}`);
    if (block.marker === 'starts-service') {
      // The README's foreground `npm start`, in the background: its pid is npm's.
      code = code.replace(
        /^npm start\s*$/m,
        `npm start > ${JSON.stringify(join(dir, 'service.log'))} 2>&1 &\nCG_SERVICE=$!\nfor i in $(seq 300); do curl -sf http://127.0.0.1:${port}/health > /dev/null && break; kill -0 $CG_SERVICE 2> /dev/null || break; sleep 0.1; done`,
      );
      assert.match(
        code,
        /CG_SERVICE=/,
        `the block at README line ${block.line} starts no service with a line "npm start"`,
      );
    }
    const file = join(dir, `block-${index}.sh`);
    writeFileSync(file, code);
    // set -e: a command failing anywhere in a block fails it, not only its last command.
    parts.push(
      `printf '\n::start ${block.line}\n'`,
      'set -e',
      `source ${JSON.stringify(file)}`,
      'set +e',
      `printf '\n::block ${block.line} 0 at %s s\n' $SECONDS`,
    );
  });
  // The service must go when npm does: kill npm, then wait for the server's lock to go with it.
  parts.push(
    'kill $(jobs -p | grep -vx "$CG_SERVICE") 2> /dev/null',
    'kill "$CG_SERVICE"',
    `for i in $(seq 100); do [ -e ${JSON.stringify(join(dir, 'cellgate.db.lock'))} ] || break; sleep 0.1; done`,
    `[ -e ${JSON.stringify(join(dir, 'cellgate.db.lock'))} ] && { echo "::service still running"; exit 1; }`,
    'printf "\\n::done\\n"',
  );
  return parts.join('\n');
}

/** Whatever a run left (the service, a simulated phone) goes with the shell's process group. */
function killGroup(pid: number | undefined): void {
  try {
    if (pid) process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

describe('README.md', () => {
  const blocks = shellBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));

  it('marks exactly one block as starting the service, before the blocks that call it', () => {
    const starts = blocks.findIndex((block) => block.marker === 'starts-service');
    assert.equal(blocks.filter((block) => block.marker === 'starts-service').length, 1);
    const firstCall = blocks.findIndex((block) => block.marker === null && /:8080|cellgate/.test(block.code));
    assert.ok(starts >= 0 && starts < firstCall, `starts at ${starts}, first call at ${firstCall}`);
  });

  it('says up front which tools the walk-through needs: curl, jq and openssl', () => {
    const markdown = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const firstUse = markdown.search(/```sh\n(?:(?!```)[\s\S])*\b(curl|jq|openssl)\b/);
    const prose = markdown.slice(0, firstUse).replace(/```sh[\s\S]*?```/g, '');
    for (const tool of ['curl', 'jq', 'openssl']) assert.match(prose, new RegExp(`\`${tool}\``), tool);
  });

  it('reads a final state only after waiting for it (send --wait), never right after a send', () => {
    for (const block of blocks) {
      const lines = block.code.split('\n');
      lines.forEach((line, index) => {
        if (!/^#.*\bfinal\b/.test(line) || /--wait/.test(line)) return;
        const command = lines.slice(index + 1).find((next) => !next.startsWith('#')) ?? '';
        const continued = lines
          .slice(index + 1)
          .join('\n')
          .split(/\n(?!\s)/)[0];
        assert.match(
          `${command}\n${continued}`,
          /--wait/,
          `README line ${block.line + index}: "${line}" is not followed by a command that waits`,
        );
      });
    }
  });

  it('runs in order: every shell block exits 0, and killing npm stops the service', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cellgate-readme-'));
    const port = await freePort();
    const run = blocks.filter((block) => block.marker !== 'skip');
    const child = spawn('bash', ['-c', script(run, port, dir)], {
      // Only what the README's reader has, plus where the data and the port go.
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TMPDIR: tmpdir(),
        CELLGATE_DATABASE_URL: `sqlite:${join(dir, 'cellgate.db')}`,
        CELLGATE_PORT: String(port),
        CELLGATE_LOG_FORMAT: 'json',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    try {
      const closed = new Promise((resolve) => child.on('close', resolve));
      const status = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      // Background processes still holding the output pipes would keep 'close' from coming.
      killGroup(child.pid);
      await closed;
      const started = [...stdout.matchAll(/^::start (\d+)$/gm)].map((m) => Number(m[1]));
      const ran = [...stdout.matchAll(/^::block (\d+) 0 at \d+ s$/gm)].map((m) => Number(m[1]));
      const failed = started.find((line) => !ran.includes(line));
      const log = existsSync(join(dir, 'service.log'))
        ? readFileSync(join(dir, 'service.log'), 'utf8').slice(-2000)
        : '';
      assert.equal(
        failed,
        undefined,
        `the block at README line ${failed} failed (exit ${status})\n--- stdout\n${stdout.slice(-3000)}\n--- stderr\n${stderr.slice(-3000)}\n--- service log\n${log}`,
      );
      assert.deepEqual(
        ran,
        run.map((block) => block.line),
        `blocks that ran\n${stdout.slice(-3000)}\n${stderr.slice(-2000)}`,
      );
      assert.match(stdout, /^::done$/m, `${stdout.slice(-2000)}\n${stderr.slice(-2000)}\n${log}`);
      assert.equal(status, 0);
    } finally {
      killGroup(child.pid);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
