// HAProxy for the scale-out benchmark and the configuration's test: the repository's
// deploy/haproxy.cfg with its `server` lines replaced by the given processes, started in the
// foreground as the invoking user (CELLGATE_LB_UNPRIVILEGED), and its status page read as CSV.
// Kept out of bench/*.ts so that bench/run.ts does not run it as a benchmark.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort, ROOT } from '../lib.ts';

export const HAPROXY_CONFIG = join(ROOT, 'deploy', 'haproxy.cfg');
/** The first line of a section (conditional blocks such as `.if` also start in column 0). */
export const SECTION =
  /^(global|defaults|frontend|backend|listen|resolvers|peers|userlist|mailers|program|http-errors|ring|cache)\b/;

/** haproxy on PATH, or Debian's /usr/sbin/haproxy, or null. */
export function findHaproxy(): string | null {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/sbin', '/usr/local/sbin'];
  return dirs.map((dir) => join(dir, 'haproxy')).find((path) => existsSync(path)) ?? null;
}

export interface Backend {
  name: string;
  /** host:port of a `cellgate serve` process. */
  address: string;
}

/** The configuration text with the backend's `server` lines replaced by `backends` (in place of the first one). */
export function configWithServers(text: string, backends: Backend[]): string {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => /^backend cellgate\s*$/.test(line));
  if (start < 0) throw new Error('deploy/haproxy.cfg has no `backend cellgate` section');
  let end = lines.findIndex((line, i) => i > start && SECTION.test(line));
  if (end < 0) end = lines.length;
  const isServer = (line: string) => /^\s+server\s/.test(line);
  const first = lines.findIndex((line, i) => i > start && i < end && isServer(line));
  if (first < 0) throw new Error('the `backend cellgate` section of deploy/haproxy.cfg has no `server` line');
  const servers = backends.map((b) => `    server ${b.name} ${b.address}`);
  const kept = lines.slice(start, end).filter((line, i) => !(isServer(line) && start + i !== first));
  const section = kept.flatMap((line) => (isServer(line) ? servers : [line]));
  return [...lines.slice(0, start), ...section, ...lines.slice(end)].join('\n');
}

/** The environment the configuration reads: where to listen, and no chroot, user switch or admin socket. */
export function haproxyEnv(options: { port: number; statsPort: number }): Record<string, string> {
  return {
    CELLGATE_LB_BIND: `127.0.0.1:${options.port}`,
    CELLGATE_LB_STATS_BIND: `127.0.0.1:${options.statsPort}`,
    CELLGATE_LB_UNPRIVILEGED: '1',
  };
}

/** `haproxy -c -f <file>`: exit status and output. */
export function checkConfig(
  haproxy: string,
  file: string,
  env: Record<string, string> = {},
): { status: number; output: string } {
  const result = spawnSync(haproxy, ['-c', '-f', file], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status ?? 1, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

export interface ServerState {
  name: string;
  /** UP, DOWN, MAINT, `UP 1/2` while rising or falling, ... */
  status: string;
  /** Current sessions on that server. */
  sessions: number;
}

export interface Balancer {
  url: string;
  child: ChildProcess;
  /** The backend's servers as the status page reports them. */
  servers(): Promise<ServerState[]>;
  stop(): Promise<void>;
}

/** Starts HAProxy on the repository's configuration with `backends`; resolves once every server is UP. */
export async function startHaproxy(haproxy: string, backends: Backend[], timeoutMs = 30_000): Promise<Balancer> {
  const dir = mkdtempSync(join(tmpdir(), 'cellgate-haproxy-'));
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, configWithServers(readFileSync(HAPROXY_CONFIG, 'utf8'), backends));
  const port = await freePort();
  const statsPort = await freePort();
  const env = haproxyEnv({ port, statsPort });
  const check = checkConfig(haproxy, file, env);
  if (check.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`haproxy -c rejected the configuration:\n${check.output}`);
  }
  // -db: foreground, no daemon. Its request log (stdout) is not needed here.
  const child = spawn(haproxy, ['-db', '-f', file], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-8000);
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const servers = async (): Promise<ServerState[]> => {
    const csv = await fetch(`http://127.0.0.1:${statsPort}/;csv`).then((r) => r.text());
    const rows = csv.split('\n').filter((line) => line && !line.startsWith('#'));
    const header = csv.slice(2, csv.indexOf('\n')).split(',');
    const at = (name: string) => header.indexOf(name);
    return rows
      .map((row) => row.split(','))
      .filter((cells) => cells[at('pxname')] === 'cellgate' && !['FRONTEND', 'BACKEND'].includes(cells[at('svname')]))
      .map((cells) => ({
        name: cells[at('svname')],
        status: cells[at('status')],
        sessions: Number(cells[at('scur')]),
      }));
  };

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`haproxy exited before it was ready:\n${stderr}`);
    }
    try {
      const states = await servers();
      if (states.length === backends.length && states.every((s) => s.status === 'UP')) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`haproxy's servers were not all UP within ${timeoutMs} ms:\n${stderr}`);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  return { url: `http://127.0.0.1:${port}`, child, servers, stop };
}
