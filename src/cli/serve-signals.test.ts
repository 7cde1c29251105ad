// @database-independent (a server process on a SQLite file of its own)
// `cellgate serve` and its signals (issue 35 §7): the first SIGINT drains (in-flight requests are
// awaited), a second SIGINT does not wait for the drain: the process exits at once (130).
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, serviceEnv, serviceReadyLine, startChild } from '../../bench/lib.ts';

it('exits at once on a second SIGINT while the first one drains a request in flight', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cellgate-signals-'));
  const port = await freePort();
  const server = await startChild({
    args: ['--no-warnings', 'src/entry.mjs', 'serve'],
    port,
    readyPath: '/health',
    readyLine: serviceReadyLine(port),
    env: serviceEnv({
      databaseUrl: `sqlite:${join(dir, 'cellgate.db')}`,
      port,
      adminToken: 'cg_adm_signals0000000000',
    }),
  });
  const socket = net.connect(port, '127.0.0.1');
  try {
    // A request in flight the drain waits for: its body announced but never sent.
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      'POST /v1/agent/sign-up HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"em',
    );
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
    server.child.kill('SIGINT');
    const first = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('draining'), 500))]);
    assert.equal(first, 'draining', 'the first SIGINT waits for the request in flight');
    server.child.kill('SIGINT');
    assert.equal(await exited, 130);
  } finally {
    socket.destroy();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
