// A real HTTP webhook receiver on loopback for tests: records every request and answers with
// whatever `respond` says (a status and headers, 'hang' or 'reset'). It can be stopped
// and started again on the same port to play a receiver that is down for a stretch.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  /** Path and query. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A status (and headers, a body: default 'ok'); 'hang' never answers; 'reset' drops the connection unanswered. */
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang' | 'reset';

export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  respond: (request: ReceivedRequest) => Answer = () => ({ status: 200 });
  private server: Server | null = null;
  private readonly hanging = new Set<ServerResponse>();
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  async start(port = this.port): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request = { url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        this.requests.push(request);
        const answer = this.respond(request);
        if (answer === 'reset') {
          req.socket.destroy();
          return;
        }
        if (answer === 'hang') {
          this.hanging.add(res);
          return;
        }
        res.writeHead(answer.status, answer.headers).end(answer.body ?? 'ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The parsed envelopes received, in arrival order. */
  envelopes(): { id: string; type: string; data: Record<string, unknown> }[] {
    return this.requests.map((r) => JSON.parse(r.body));
  }
}

export async function startReceiver(): Promise<Receiver> {
  return new Receiver().start(0);
}
