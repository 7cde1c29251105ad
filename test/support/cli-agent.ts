// Test support for the agent commands' child-process tests: runs `src/entry.mjs` (the compile cache on) asynchronously (the
// service under test listens in the test's own process, so spawnSync would block it).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startApp } from '../harness.ts';
import { activeLine } from './messages.ts';

const MAIN = join(import.meta.dirname, '..', '..', 'src', 'entry.mjs');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Starts `cellgate <args>` with only PATH and `env` in its environment. */
export function startCli(args: string[], env: Record<string, string> = {}): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, ['--no-deprecation', '--no-warnings', MAIN, ...args], {
    env: { PATH: process.env.PATH, ...env },
  });
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  return child;
}

/** Runs `cellgate <args>` to its end. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const child = startCli(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: string) => (stdout += chunk));
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
  return new Promise((resolve) =>
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    }),
  );
}

/** Resolves with the output so far once `pattern` matches it (stdout or stderr), else rejects. */
export function outputMatching(
  child: ChildProcessWithoutNullStreams,
  stream: 'stdout' | 'stderr',
  pattern: RegExp,
  timeoutMs = 30_000,
): Promise<string> {
  let text = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ${pattern} on ${stream} in ${timeoutMs} ms; got: ${text}`)),
      timeoutMs,
    );
    child[stream].on('data', (chunk: string) => {
      text += chunk;
      if (pattern.test(text)) {
        clearTimeout(timer);
        resolve(text);
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before ${pattern}; ${stream}: ${text}`));
    });
  });
}

export function exited(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.on('close', (code) => resolve(code)),
  );
}

/** A test app listening on loopback with one active line, and the CLI's environment for its key. */
export async function listeningLine() {
  const t = await startApp();
  const line = await activeLine(t);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  return { t, line, env: { CELLGATE_API_KEY: line.org.apiKey, CELLGATE_BASE_URL: `http://127.0.0.1:${port}` } };
}
