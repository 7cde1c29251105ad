// The live view of a page: Server-Sent Events fed in-process by the events module's shared reader
// (EventFeed; on PostgreSQL it hears every process through LISTEN/NOTIFY). A stream subscribes to
// its organization only and passes on the events its page shows, rendered by the caller.
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
import { openSse, type SseStream } from '../../../http/sse.ts';
import type { App } from '../../../http/types.ts';
import { HeartbeatSet } from '../../../lib/heartbeat-set.ts';
import { ApiError } from '../../../lib/errors.ts';
import { sessionOf, STREAM_ROUTE } from '../binder.ts';
import type { ConsoleModule } from '../module.ts';
import type { ConsoleSession } from '../service.ts';
import { StreamEvent } from '../../events/envelope.ts';
import { ReplayingSubscriber } from '../../events/feed.ts';
import type { EventsService } from '../../events/service.ts';
import { EVENT_TYPES, type EventEnvelope } from '../../events/types.ts';

/** What the live pages show changes with these. */
const LIVE_TYPES = EVENT_TYPES.filter((type) => /^(message|cell|cycle)\./.test(type));
const LIVE = new Set<string>(LIVE_TYPES);
const HEARTBEAT_MS = 25_000;
/** Replayed at most: a page open longer than this many events ago reloads its content instead. */
const REPLAY_MAX = 500;
/** Live events held while the replay runs, and unread bytes, before the stream is dropped (the script reconnects). */
const MAX_QUEUED = 1_000;
const SSE = { retryMs: 3000, maxBufferedBytes: 1024 * 1024, nosniff: true };

/** A frame for the page: an SSE event name and its JSON data; null when the event does not concern it. */
export type LiveRender = (envelope: EventEnvelope) => { event: string; data: unknown } | null;

/** What a stream shows: the organization's events it passes on, and how. */
export interface Shown {
  concerns: (envelope: EventEnvelope) => boolean;
  render: LiveRender;
}

/** The event concerns this cell (a message of the cell, or the cell itself); with no cell, any cell's own event (the cells list). */
export const concernsCell = (cellId: string | null) => (envelope: EventEnvelope) =>
  envelope.type.startsWith('message.')
    ? cellId !== null && envelope.data.cell_id === cellId
    : envelope.type.startsWith('cell.') && (cellId === null || envelope.data.id === cellId);

/** `after`: the Last-Event-ID a reconnecting EventSource sends, else the page's; a seq or nothing. */
function afterOf(request: FastifyRequest): number | null | 'invalid' {
  const valid = (value: unknown): value is string => typeof value === 'string' && /^\d{1,15}$/.test(value);
  const header = request.headers['last-event-id'];
  const given = valid(header) ? header : (request.query as Record<string, unknown>).after;
  if (given === undefined) return null;
  return valid(given) ? Number(given) : 'invalid';
}

/** A live stream's refusal: plain text (an EventSource cannot follow a sign-in redirect). */
export const plainAnswer = (reply: FastifyReply, status: number, text: string) =>
  reply.code(status).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send(text);

class LiveStream extends ReplayingSubscriber {
  readonly request: FastifyRequest;
  private readonly sse: SseStream;
  private readonly shown: Shown;

  constructor(organizationId: string, request: FastifyRequest, sse: SseStream, shown: Shown, detach: () => void) {
    super(organizationId, MAX_QUEUED, detach);
    this.request = request;
    this.sse = sse;
    this.shown = shown;
    sse.onClose(() => this.closed());
  }

  protected wants(event: StreamEvent): boolean {
    return LIVE.has(event.type);
  }

  protected overflow(): void {
    this.close();
  }

  /** History (lastSeq, upTo] (or a resync when it is too long), `ready`, then what came meanwhile. */
  async replay(events: EventsService, upTo: number): Promise<void> {
    if (this.lastSeq < upTo) {
      const rows = await events.readOrganizationRange(this.organizationId, this.lastSeq, upTo, LIVE_TYPES, REPLAY_MAX);
      if (rows.length === REPLAY_MAX) this.sse.send('resync', {}, upTo);
      else for (const row of rows) this.sendLive(new StreamEvent(row));
    }
    // Everything up to here is out: a reconnect resumes from this position.
    this.goLive(upTo, () => this.sse.send('ready', {}, this.lastSeq));
  }

  /** A comment line that keeps the connection busy; a client that stopped reading is dropped. */
  heartbeat(): void {
    this.sse.comment(' ping');
  }

  /** Tells the page why (optional), ends the response and releases the subscription. */
  close(event?: string): void {
    if (event) this.sse.send(event, {});
    this.sse.end();
  }

  protected sendLive(event: StreamEvent): void {
    this.lastSeq = event.seq;
    const envelope = event.envelope;
    // The feed and the replay read this organization's events only; checked again, as it is what keeps organizations apart.
    if (envelope.organization_id !== this.organizationId || !this.shown.concerns(envelope)) return;
    const frame = this.shown.render(envelope);
    if (frame) this.sse.send(frame.event, frame.data, event.seq);
  }
}

/**
 * The live views of a group of pages. A session still holds (checked at each heartbeat) while it
 * is the same organization's; every stream ends when the server closes (open streams would hold
 * the close until the browsers hang up).
 */
export class ConsoleLive {
  private readonly app: App;
  private readonly module: ConsoleModule;
  private readonly events: EventsService;
  private readonly streams = new HeartbeatSet<LiveStream>(HEARTBEAT_MS, () => void this.heartbeat());

  constructor(app: App, module: ConsoleModule) {
    this.app = app;
    this.module = module;
    this.events = module.dashboard.eventing.events;
    // Server shutdown: every stream ends (the browser reconnects to another process).
    app.addHook('preClose', async () => {
      for (const stream of this.streams) stream.close();
    });
  }

  /**
   * A live stream's route, under the signed-in scope's session check (a plain 401): `show` says
   * what it streams, after its own checks (a not_found it throws is a plain 404 saying `missing`);
   * then a bad `after` is a 400. The stream takes over the response until either side closes.
   */
  route(
    path: string,
    show: (request: FastifyRequest, session: ConsoleSession) => Promise<Shown> | Shown,
    missing = 'Not found.',
  ): void {
    this.app.get(path, STREAM_ROUTE, async (request, reply) => {
      const session = sessionOf(request);
      let shown: Shown;
      try {
        shown = await show(request, session);
      } catch (error) {
        if (error instanceof ApiError && error.code === 'not_found') return plainAnswer(reply, 404, missing);
        throw error;
      }
      const after = afterOf(request);
      if (after === 'invalid') return plainAnswer(reply, 400, 'after must be an event position from the page.');
      await this.open(request, reply, shown, after);
      return reply;
    });
  }

  private async open(request: FastifyRequest, reply: FastifyReply, shown: Shown, after: number | null): Promise<void> {
    const { events } = this;
    const { organizationId } = sessionOf(request);
    const release = this.module.liveViews.admit(organizationId);
    let committed: number;
    try {
      // The end of the outbox as committed now; the shared reader may lag behind it by a wake.
      committed = await events.latestSeq();
      await events.feed.start();
    } catch (error) {
      release();
      throw error;
    }
    // The browser may have gone while we awaited: its 'close' has fired already (it would give
    // the slot back), so do not subscribe.
    const sse = openSse(request, reply, SSE);
    if (!sse) return release();
    reply.raw.on('close', release);
    const stream = new LiveStream(organizationId, request, sse, shown, () => {
      events.feed.unsubscribe(stream);
      this.streams.delete(stream);
    });
    const upTo = Math.max(events.feed.subscribe(stream), committed);
    // An `after` beyond what exists is clamped, so no later event is ever skipped.
    stream.startAfter(Math.min(after ?? committed, upTo));
    this.streams.add(stream);
    try {
      await stream.replay(events, upTo);
    } catch (error) {
      this.app.log.warn({ err: error }, 'console live stream failed; the browser reconnects');
      stream.close();
    }
  }

  private async heartbeat(): Promise<void> {
    for (const stream of [...this.streams]) {
      stream.heartbeat();
      try {
        if ((await this.module.guard.session(stream.request))?.organizationId !== stream.organizationId)
          stream.close('signed-out');
      } catch (error) {
        this.app.log.warn({ err: error }, 'console live stream: session check failed');
      }
    }
  }
}

export const pageLive = (app: App, module: ConsoleModule) => new ConsoleLive(app, module);
