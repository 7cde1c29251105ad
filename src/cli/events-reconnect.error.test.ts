// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
// `cellgate events tail` once connected outlives a restarting service: a dropped stream and then
// refused reconnects are tried again with a growing wait (1 s, 2 s, ...), resuming after the last
// event seen. A stand-in stream server plays the service; the waits are recorded, not slept.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { agentCommand } from './agent-commands.ts';

const envelope = (id: string) => ({
  id,
  type: 'message.received',
  created_at: '2026-11-21T12:00:00.000Z',
  data: { id: 'msg_1', direction: 'inbound', from: '+14155550100', to: '+14155550101', status: 'received', body: 'hi' },
});

async function listen(port = 0): Promise<WebSocketServer> {
  const server = new WebSocketServer({ host: '127.0.0.1', port });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return server;
}

const shut = (server: WebSocketServer) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('cellgate events tail reconnects', () => {
  it('keeps reconnecting with backoff after a refused reconnect, resuming after the last event', async () => {
    let server = await listen();
    const { port } = server.address() as AddressInfo;
    const urls: string[] = [];
    const serve = (server: WebSocketServer, onOpen: (socket: WebSocket) => void) =>
      server.on('connection', (socket, request) => {
        urls.push(request.url ?? '');
        socket.send(JSON.stringify({ type: 'ready' }));
        onOpen(socket);
      });
    // First connection: one event, then the service goes away (no close frame) and stops listening.
    let gone: Promise<void> | undefined;
    serve(server, (socket) => {
      socket.send(JSON.stringify({ type: 'event', event: envelope('evt_01') }));
      setImmediate(() => {
        socket.terminate();
        gone = shut(server);
      });
    });

    const waits: number[] = [];
    const out: string[] = [];
    const progress: string[] = [];
    const wait = async (ms: number) => {
      waits.push(ms);
      if (waits.length === 1) await gone; // nothing listens on the port any more
      // The third wait: the service is back; its stream sends the next event, then ends the test
      // with a close code the command does not retry.
      if (waits.length === 3) {
        server = await listen(port);
        serve(server, (socket) => {
          socket.send(JSON.stringify({ type: 'event', event: envelope('evt_02') }));
          setImmediate(() => socket.close(4499, 'test over'));
        });
      }
    };
    const run = agentCommand(
      'events',
      ['tail', '--json', '--key', 'cg_live_test', '--base-url', `http://127.0.0.1:${port}`],
      (line) => out.push(line),
      (line) => progress.push(line),
      { wait },
    );
    await assert.rejects(run, /the event stream closed \(4499\): test over/);
    await shut(server);

    assert.deepEqual(
      out.map((line) => JSON.parse(line).id),
      ['evt_01', 'evt_02'],
    );
    assert.deepEqual(waits, [1000, 2000, 4000], 'a wait that doubles: closed, then refused twice');
    assert.match(progress.join('\n'), /reconnecting failed \(ECONNREFUSED\); reconnecting in 2 s after evt_01/);
    assert.equal(urls.length, 2);
    assert.match(urls[1], /since=evt_01/);
  });

  it('a first connection that is refused still ends the command with one error', async () => {
    const server = await listen();
    const { port } = server.address() as AddressInfo;
    await shut(server);
    const waits: number[] = [];
    await assert.rejects(
      agentCommand(
        'events',
        ['tail', '--key', 'cg_live_test', '--base-url', `http://127.0.0.1:${port}`],
        () => {},
        () => {},
        {
          wait: async (ms) => void waits.push(ms),
        },
      ),
      /ECONNREFUSED\): is the service running/,
    );
    assert.deepEqual(waits, []);
  });
});
