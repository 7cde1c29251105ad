// Test helpers for the Termux agent (device-agent.test.ts, and the single-file agent's tests in
// src/modules/devices): a fake phone whose termux-* commands are test/fixtures/termux (they record
// their arguments and print what Termux:API prints), and waiting for a condition, not for a time.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const TERMUX_FIXTURES = resolve(import.meta.dirname, '../../test/fixtures/termux');
export const TERMUX_BIN = join(TERMUX_FIXTURES, 'bin');

export interface FakePhone {
  dir: string;
  env: NodeJS.ProcessEnv;
  calls(command?: string): { command: string; args: string[] }[];
  /** The inbox as termux-sms-list prints it (oldest first, pretty JSON). */
  inbox(texts: { id: number; from: string; body: string }[]): void;
  /** Writes a file the fake commands read ($FAKE_TERMUX_DIR/<name>: send-mode, release, a fixture's override). */
  set(name: string, text: string): void;
}

export function fakePhone(binDir = TERMUX_BIN): FakePhone {
  const dir = mkdtempSync(join(tmpdir(), 'cellgate-termux-'));
  const env = { PATH: [binDir, dirname(process.execPath), '/usr/bin', '/bin'].join(':'), FAKE_TERMUX_DIR: dir };
  return {
    dir,
    env,
    calls(command) {
      const file = join(dir, 'calls.jsonl');
      if (!existsSync(file)) return [];
      const all = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
      return command ? all.filter((c) => c.command === command) : all;
    },
    inbox(texts) {
      const entries = texts.map((t) => ({
        threadid: 1,
        type: 'inbox',
        read: false,
        address: t.from,
        number: t.from,
        received: '2026-11-21 05:56:12',
        body: t.body,
        _id: t.id,
      }));
      writeFileSync(join(dir, 'inbox.json'), `${JSON.stringify(entries, null, 2)}\n`);
    },
    set(name, text) {
      writeFileSync(join(dir, name), text);
    },
  };
}

/**
 * Resolves with the first truthy answer of `probe`, asked every 50 ms; rejects after `ms` of real
 * time. The limit is generous on purpose: it only bounds a failing test, a passing one never waits it out.
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}
