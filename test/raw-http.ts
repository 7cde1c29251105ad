// A raw TCP client for tests of what happens below Fastify (parser errors, timeouts): writes bytes
// as given, optionally trickles more, and records everything the server sent until it closed.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { TestApp } from './harness.ts';

export interface RawExchange {
  /** Every byte the server sent, as text. */
  received: string;
  /** The server closed the connection (false: still open when `giveUpMs` ran out). */
  closed: boolean;
  /** Real milliseconds from connecting to the close. */
  elapsedMs: number;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Listens on an ephemeral loopback port (once per app); the port. */
export async function listeningPort(t: TestApp): Promise<number> {
  if (!t.app.server.listening) await t.app.listen({ port: 0, host: '127.0.0.1' });
  return (t.app.server.address() as AddressInfo).port;
}

/**
 * Sends `head`, then one byte of `trickle` every `everyMs` (when given), until the server closes
 * the connection or `giveUpMs` passes.
 */
export function rawExchange(
  port: number,
  head: string,
  options: { trickle?: string; everyMs?: number; giveUpMs?: number } = {},
): Promise<RawExchange> {
  const { trickle = '', everyMs = 50, giveUpMs = 5000 } = options;
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let sent = 0;
    let ticker: NodeJS.Timeout | undefined;
    const finish = (closed: boolean) => {
      clearInterval(ticker);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ received, closed, elapsedMs: performance.now() - started });
    };
    const giveUp = setTimeout(() => finish(false), giveUpMs);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => {});
    socket.on('close', () => finish(true));
    socket.on('connect', () => {
      socket.write(head, 'latin1');
      if (trickle) {
        ticker = setInterval(() => {
          if (sent < trickle.length && !socket.destroyed) socket.write(trickle[sent++], 'latin1');
        }, everyMs);
      }
    });
  });
}

/** Parses the HTTP/1.1 responses in `received` (Content-Length framed), in order. */
export function parseResponses(received: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = received;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    // One character per byte (latin1), so the length slices bytes.
    const body = Buffer.from(rest.slice(end + 4, end + 4 + length), 'latin1').toString('utf8');
    responses.push({ status: Number(statusLine.split(' ')[1]), headers, body });
    rest = rest.slice(end + 4 + length);
  }
  return responses;
}
