// The live view of a cell: Server-Sent Events fed in-process by the events module's shared reader
// (EventFeed; on PostgreSQL it hears every process through LISTEN/NOTIFY). A stream subscribes to
// its organization only and passes on the events of its one cell (or, for the cells list, the
// cell events of every cell), rendered by the caller.
//
// No gaps: the page carries the outbox position it was rendered at (`after`), and each frame's
// `id:` is the event's seq, which EventSource sends back as Last-Event-ID when it reconnects. A
// stream subscribes first, then replays (after, join point] from the database, then sends what
// the feed delivered meanwhile, dropping anything at or below the last seq sent (as the WebSocket
// stream does). A backlog too long to replay is a `resync`: the script reloads the page's content.
//
// At most CELLGATE_MAX_STREAMS_PER_ORG live views per organization (in this process): one more is
// 429 `rate_limited` with Retry-After, before the response is taken over; the slot is given back
// with the response's 'close'.
//
// Released on disconnect: the response's 'close' unsubscribes. A heartbeat comment keeps proxies
// from closing an idle stream and re-checks the session, so signing out ends open streams too.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../../http/types.ts';
import type { ConsoleModule } from '../module.ts';
import type { ConnectionCap } from '../../../http/connection-caps.ts';
import { StreamEvent } from '../../events/envelope.ts';
import type { FeedSubscriber } from '../../events/feed.ts';
import type { EventsService } from '../../events/service.ts';
import type { EventEnvelope, EventType } from '../../events/types.ts';

/** What a cell's page shows changes with these. */
export const LIVE_TYPES: readonly EventType[] = [
  'message.sent',
  'message.delivered',
  'message.failed',
  'message.received',
  'cell.created',
  'cell.updated',
  'cell.online',
  'cell.offline',
  'cell.deleted',
  'cycle.completed',
  'cycle.failed',
];
const LIVE = new Set<string>(LIVE_TYPES);
const HEARTBEAT_MS = 25_000;
/** Replayed at most: a page open longer than this many events ago reloads its content instead. */
const REPLAY_MAX = 500;
/** Live events held while the replay runs, and unread bytes, before the stream is dropped (the script reconnects). */
const MAX_QUEUED = 1_000;
const MAX_BUFFERED_BYTES = 1024 * 1024;

/** A frame for the page: an SSE event name and its JSON data; null when the event does not concern it. */
export type LiveRender = (envelope: EventEnvelope) => { event: string; data: unknown } | null;

/** The event concerns this cell (a message of the cell, or the cell itself); with no cell, any cell's own event (the cells list). */
export function concernsCell(envelope: EventEnvelope, cellId: string | null): boolean {
  if (envelope.type.startsWith('message.')) return cellId !== null && envelope.data.cell_id === cellId;
  if (envelope.type.startsWith('cell.')) return cellId === null || envelope.data.id === cellId;
  return false;
}

/** `after`: the Last-Event-ID a reconnecting EventSource sends, else the page's; a seq or nothing. */
export function parseAfter(header: unknown, query: unknown): number | null | 'invalid' {
  const valid = (value: unknown) => typeof value === 'string' && /^\d{1,15}$/.test(value);
  if (valid(header)) return Number(header);
  if (query === undefined) return null;
  return valid(query) ? Number(query) : 'invalid';
}

class LiveStream implements FeedSubscriber {
  readonly organizationId: string;
  readonly request: FastifyRequest;
  private readonly reply: FastifyReply;
  private readonly concerns: (envelope: EventEnvelope) => boolean;
  private readonly render: LiveRender;
  private readonly onClose: (stream: LiveStream) => void;
  private state: 'replaying' | 'live' | 'closed' = 'replaying';
  private lastSeq = 0;
  private readonly queued: StreamEvent[] = [];

  constructor(options: {
    organizationId: string;
    cellId: string | null;
    concerns?: (envelope: EventEnvelope) => boolean;
    request: FastifyRequest;
    reply: FastifyReply;
    render: LiveRender;
    onClose: (stream: LiveStream) => void;
  }) {
    this.organizationId = options.organizationId;
    const { cellId } = options;
    this.concerns = options.concerns ?? ((envelope) => concernsCell(envelope, cellId));
    this.request = options.request;
    this.reply = options.reply;
    this.render = options.render;
    this.onClose = options.onClose;
  }

  startAfter(seq: number): void {
    this.lastSeq = seq;
  }

  deliver(event: StreamEvent): void {
    if (this.state === 'closed' || event.seq <= this.lastSeq || !LIVE.has(event.type)) return;
    if (this.state === 'live') return this.send(event);
    if (this.queued.length >= MAX_QUEUED) return this.close();
    this.queued.push(event);
  }

  /** History (lastSeq, upTo] (or a resync when it is too long), `ready`, then what came meanwhile. */
  async replay(events: EventsService, upTo: number): Promise<void> {
    if (this.lastSeq < upTo) {
      const rows = await events.readOrganizationRange(this.organizationId, this.lastSeq, upTo, LIVE_TYPES, REPLAY_MAX);
      if (rows.length === REPLAY_MAX) this.write('resync', {}, upTo);
      else for (const row of rows) this.send(new StreamEvent(row));
    }
    if (this.state === 'closed') return;
    this.lastSeq = Math.max(this.lastSeq, upTo);
    // Everything of the cell up to here is out: a reconnect resumes from this position.
    this.write('ready', {}, this.lastSeq);
    this.state = 'live';
    for (const event of this.queued.splice(0)) this.deliver(event);
  }

  /** A comment line: keeps the connection busy; false when the client stopped reading. */
  heartbeat(): void {
    if (this.reply.raw.writableLength > MAX_BUFFERED_BYTES) return this.close();
    this.reply.raw.write(': ping\n\n');
  }

  /** Tells the page why (optional), ends the response and releases the subscription. */
  close(event?: string): void {
    if (this.state === 'closed') return;
    if (event) this.write(event, {});
    this.closed();
    this.reply.raw.end();
  }

  /** The response is over (either side): no more deliveries. */
  closed(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.queued.length = 0;
    this.onClose(this);
  }

  private send(event: StreamEvent): void {
    this.lastSeq = event.seq;
    const envelope = event.envelope;
    // The feed and the replay read this organization's events only; checked again, as it is what keeps organizations apart.
    if (envelope.organization_id !== this.organizationId || !this.concerns(envelope)) return;
    const frame = this.render(envelope);
    if (frame) this.write(frame.event, frame.data, event.seq);
  }

  private write(event: string, data: unknown, id?: number): void {
    if (this.state === 'closed') return;
    if (this.reply.raw.writableLength > MAX_BUFFERED_BYTES) return this.close();
    // JSON has no raw line breaks, so the data is one `data:` line.
    this.reply.raw.write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }
}

export interface LiveDeps {
  events: EventsService;
  /** Whether the stream's session still holds, for this organization (checked at each heartbeat). */
  stillSignedIn: (request: FastifyRequest, organizationId: string) => Promise<boolean>;
  log: { warn(details: object, message: string): void };
  /** Concurrent live views per organization. */
  cap: ConnectionCap;
}

export class ConsoleLive {
  private readonly deps: LiveDeps;
  private readonly streams = new Set<LiveStream>();
  private timer: NodeJS.Timeout | undefined;

  constructor(deps: LiveDeps) {
    this.deps = deps;
  }

  get streamCount(): number {
    return this.streams.size;
  }

  /** Takes over the response (checks are the caller's: session, cell ownership, `after`) and streams until either side closes. */
  async open(
    request: FastifyRequest,
    reply: FastifyReply,
    options: {
      organizationId: string;
      cellId: string | null;
      /** Which events of the organization the page shows (default: concernsCell of cellId). */
      concerns?: (envelope: EventEnvelope) => boolean;
      after: number | null;
      render: LiveRender;
    },
  ): Promise<void> {
    const { events } = this.deps;
    const release = this.deps.cap.admit(options.organizationId);
    const committed = await this.prepare(request, reply, release);
    if (committed === false) return;
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      // nginx and similar proxies would otherwise hold the frames back.
      'x-accel-buffering': 'no',
    });
    reply.raw.write('retry: 3000\n\n');
    reply.raw.on('close', release);
    const stream = new LiveStream({ ...options, request, reply, onClose: (s) => this.forget(s) });
    reply.raw.on('close', () => stream.closed());
    const joinedAt = events.feed.subscribe(stream);
    const upTo = Math.max(joinedAt, committed);
    // An `after` beyond what exists is clamped, so no later event is ever skipped.
    stream.startAfter(Math.min(options.after ?? committed, upTo));
    this.streams.add(stream);
    this.startHeartbeat();
    try {
      await stream.replay(events, upTo);
    } catch (error) {
      this.deps.log.warn({ err: error }, 'console live stream failed; the browser reconnects');
      stream.close();
    }
  }

  /**
   * Reads the outbox's end and takes the response over; false (and the slot given back) when the
   * browser went meanwhile or the database failed: then there is no response whose 'close' would.
   */
  private async prepare(request: FastifyRequest, reply: FastifyReply, release: () => void): Promise<number | false> {
    try {
      // The end of the outbox as committed now; the shared reader may lag behind it by a wake.
      const committed = await this.deps.events.latestSeq();
      await this.deps.events.feed.start();
      reply.hijack();
      // The browser may have gone while we awaited: its 'close' has fired already, so do not subscribe.
      if (request.raw.destroyed) {
        release();
        reply.raw.destroy();
        return false;
      }
      return committed;
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Server shutdown: every stream ends (the browser reconnects to another process). */
  closeAll(): void {
    for (const stream of this.streams) stream.close();
    this.stopHeartbeat();
  }

  private forget(stream: LiveStream): void {
    this.deps.events.feed.unsubscribe(stream);
    this.streams.delete(stream);
    if (this.streams.size === 0) this.stopHeartbeat();
  }

  private startHeartbeat(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.heartbeat(), HEARTBEAT_MS);
    this.timer.unref();
  }

  private stopHeartbeat(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async heartbeat(): Promise<void> {
    for (const stream of [...this.streams]) {
      stream.heartbeat();
      try {
        if (!(await this.deps.stillSignedIn(stream.request, stream.organizationId))) stream.close('signed-out');
      } catch (error) {
        this.deps.log.warn({ err: error }, 'console live stream: session check failed');
      }
    }
  }
}

/**
 * The live views of a group of pages: a session still holds while it is the same organization's,
 * and every stream ends when the server closes (open streams would hold the close until the
 * browsers hang up).
 */
export function pageLive(app: App, module: ConsoleModule): ConsoleLive {
  const live = new ConsoleLive({
    events: module.dashboard.eventing.events,
    stillSignedIn: async (request, organizationId) =>
      (await module.guard.session(request))?.organizationId === organizationId,
    log: app.log,
    cap: module.liveViews,
  });
  app.addHook('preClose', async () => live.closeAll());
  return live;
}

/** A live stream's refusal: plain text (an EventSource cannot follow a sign-in redirect). */
export const plainAnswer = (reply: FastifyReply, status: number, text: string) =>
  reply.code(status).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send(text);

/** Where a live stream starts: its reconnect's Last-Event-ID, else the page's `after`. */
export const afterOf = (request: FastifyRequest) =>
  parseAfter(request.headers['last-event-id'], (request.query as Record<string, unknown>).after);
