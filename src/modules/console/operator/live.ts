// The fleet's live view: Server-Sent Events of the fleet table's rows. Telemetry and presence are
// not events of any organization (heartbeats are not in the outbox), so the view reads the fleet
// every few seconds, once for all open streams, and sends each stream what changed since it last
// sent it: rows (`device-row`), phones that left (`device-removed`), the count line
// (`fleet-summary`). A new stream first gets every row, so nothing between the page and the
// stream is missed. A session check at every tick ends the streams of a signed-out operator.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FleetRow } from './fleet.ts';
import { openSse, type SseStream } from '../../../http/sse.ts';
import { HeartbeatSet } from '../../../lib/heartbeat-set.ts';
import type { Html } from '../../../lib/html.ts';
import { fleetSummary } from './fleet-pages.ts';

const INTERVAL_MS = 5_000;
/** Open operator streams per process: a console for a few operators, not a public feed. */
export const MAX_FLEET_STREAMS = 20;
const SSE = { retryMs: 5000, maxBufferedBytes: 1024 * 1024, nosniff: true };

interface Stream {
  request: FastifyRequest;
  sse: SseStream;
  sent: Map<string, string>;
  summary?: string;
}

export class FleetLive {
  private readonly deps: {
    rows: () => Promise<FleetRow[]>;
    render: (row: FleetRow) => Html;
    stillSignedIn: (request: FastifyRequest) => Promise<boolean>;
    log: { warn(details: object, message: string): void };
  };
  private readonly streams = new HeartbeatSet<Stream>(INTERVAL_MS, () => void this.tick());
  private ticking: Promise<void> | null = null;

  constructor(deps: FleetLive['deps']) {
    this.deps = deps;
  }

  get streamCount(): number {
    return this.streams.size;
  }

  get full(): boolean {
    return this.streams.size >= MAX_FLEET_STREAMS;
  }

  /** Takes over the response (the session is the caller's check) and streams until either side closes. */
  async open(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const rows = await this.deps.rows();
    const sse = openSse(request, reply, SSE);
    if (!sse) return;
    const stream: Stream = { request, sse, sent: new Map() };
    this.streams.add(stream);
    sse.onClose(() => this.streams.delete(stream));
    this.send(stream, rows);
    sse.send('ready', {});
  }

  /** One read of the fleet, each stream sent what changed for it; ends signed-out streams. */
  tick(): Promise<void> {
    this.ticking ??= this.run().finally(() => {
      this.ticking = null;
    });
    return this.ticking;
  }

  private async run(): Promise<void> {
    if (this.streams.size === 0) return;
    let rows: FleetRow[];
    try {
      rows = await this.deps.rows();
    } catch (error) {
      this.deps.log.warn({ err: error }, 'fleet live view: reading the fleet failed');
      return;
    }
    for (const stream of [...this.streams]) {
      try {
        if (!(await this.deps.stillSignedIn(stream.request))) {
          stream.sse.send('signed-out', {});
          stream.sse.end();
          continue;
        }
      } catch (error) {
        this.deps.log.warn({ err: error }, 'fleet live view: session check failed');
        continue;
      }
      this.send(stream, rows);
      // Keeps proxies from closing a quiet stream.
      stream.sse.comment(' ping');
    }
  }

  private send(stream: Stream, rows: FleetRow[]): void {
    const seen = new Set<string>();
    for (const row of rows) {
      const id = row.device.id;
      seen.add(id);
      const html = this.deps.render(row).toString();
      if (stream.sent.get(id) === html) continue;
      stream.sent.set(id, html);
      stream.sse.send('device-row', { id, row: html });
    }
    for (const id of [...stream.sent.keys()]) {
      if (seen.has(id)) continue;
      stream.sent.delete(id);
      stream.sse.send('device-removed', { id });
    }
    const summary = fleetSummary(rows);
    if (stream.summary === summary) return;
    stream.summary = summary;
    stream.sse.send('fleet-summary', { text: summary });
  }

  /** Server shutdown: every stream ends (the browser reconnects to another process). */
  closeAll(): void {
    for (const stream of [...this.streams]) stream.sse.end();
  }
}
