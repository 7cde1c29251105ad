// The event stream (contract §6): one StreamConnection per client, all fed by the process's
// shared EventFeed. A connection joins the feed at seq H, replays its organization's history
// (since, H] from the database, then sends what the feed delivered meanwhile: in order, no gaps
// and no duplicates (everything at or below the last sent seq is dropped). Frames:
// `{"type":"event","event":{...}}`, and `{"type":"ready"}` once the replay is out.
//
// The per-organization cap is counted after authentication (the organization is known only
// then), so the upgrade is accepted and closed with 1013 rather than refused with 429: a browser
// sees a refused upgrade only as a bare error, a close code it can read. The slot is given back
// when the socket closes, whichever side or path ends it.
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { bearerToken } from '../../http/auth.ts';
import type { ConnectionCap } from '../../http/connection-caps.ts';
import type { AgentPrincipal } from '../../operations/principals.ts';
import { ApiError } from '../../lib/errors.ts';
import { HeartbeatSet } from '../../lib/heartbeat-set.ts';
import { isId } from '../../lib/ids.ts';
import { admit } from '../../operations/admit.ts';
import { isDatabaseUnavailable } from '../../db/errors.ts';
import { StreamEvent } from './envelope.ts';
import { ReplayingSubscriber } from './feed.ts';
import { parseTypeFilter } from './filter.ts';
import type { EventsService } from './service.ts';

export const DEFAULT_STREAM_OPTIONS = {
  /** Server ping period; a client that has not answered the previous ping is dropped. */
  pingIntervalMs: 30_000,
  /** Unsent bytes a live client may accumulate before it is disconnected as a slow consumer. */
  maxBufferedBytes: 1024 * 1024,
  /** Live events held for a client while its replay is still being sent. */
  maxQueuedEvents: 10_000,
  /** How long a replay waits for a client to read its backlog before giving up on it. */
  drainTimeoutMs: 10_000,
  /** After a close we start, how long the client has to answer before the socket is destroyed. */
  closeGraceMs: 5_000,
};
export type StreamOptions = typeof DEFAULT_STREAM_OPTIONS;

/** 1013: the database is unreachable, or the organization's streams are at CELLGATE_MAX_STREAMS_PER_ORG. */
export const CLOSE = {
  badRequest: 4400,
  unauthenticated: 4401,
  forbidden: 4403,
  slowConsumer: 4408,
  goingAway: 1001,
  internal: 1011,
  tryAgainLater: 1013,
} as const;

const READY = Buffer.from('{"type":"ready"}');
// Frames are JSON text: opcode 1, so a browser's event.data is a string, not a Blob. The bytes are
// encoded once and sent as they are (ws does not re-check UTF-8 on send).
const TEXT = { binary: false } as const;
const REPLAY_PAGE = 500;
const SUBPROTOCOL_PREFIX = 'bearer.';
const QUERY_KEYS = new Set(['types', 'since']);

/** For the WebSocket server: accept (echo) the `bearer.<token>` subprotocol when offered. */
export function selectBearerProtocol(protocols: Set<string>): string | false {
  for (const protocol of protocols) if (protocol.startsWith(SUBPROTOCOL_PREFIX)) return protocol;
  return false;
}

/** Close reasons are limited to 123 bytes by the protocol. */
function closeSocket(socket: WebSocket, code: number, reason: string, graceMs: number): void {
  let text = reason;
  while (Buffer.byteLength(text) > 123) text = text.slice(0, -1);
  if (socket.readyState === socket.CONNECTING || socket.readyState === socket.OPEN) socket.close(code, text);
  const timer = setTimeout(() => socket.terminate(), graceMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

class Rejection extends Error {
  readonly closeCode: number;
  constructor(closeCode: number, reason: string) {
    super(reason);
    this.closeCode = closeCode;
  }
}

function credentialOf(request: FastifyRequest): string {
  if (request.headers.authorization !== undefined) {
    const token = bearerToken(request);
    if (token === null)
      throw new Rejection(CLOSE.unauthenticated, 'The Authorization header must be "Bearer <api key>".');
    return token;
  }
  const offered = String(request.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim());
  const protocol = offered.find((p) => p.startsWith(SUBPROTOCOL_PREFIX));
  if (protocol && protocol.length > SUBPROTOCOL_PREFIX.length) return protocol.slice(SUBPROTOCOL_PREFIX.length);
  throw new Rejection(
    CLOSE.unauthenticated,
    'Send your API key as "Authorization: Bearer <key>" or the subprotocol "bearer.<key>".',
  );
}

/** The stream's admission: the credential's principal, admitted as an events:read caller; a refusal closes with 4403. */
function checkPrincipal(principal: AgentPrincipal | null): AgentPrincipal {
  if (!principal) throw new Rejection(CLOSE.unauthenticated, 'The API key is unknown, revoked or expired.');
  try {
    admit({ scope: 'events:read' }, principal);
  } catch (error) {
    if (error instanceof ApiError) throw new Rejection(CLOSE.forbidden, error.message);
    throw error;
  }
  return principal;
}

function queryOf(request: FastifyRequest): { types: ReadonlySet<string> | null; since: string | null } {
  const query = (request.query ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(query)) {
    if (!QUERY_KEYS.has(key))
      throw new Rejection(
        CLOSE.badRequest,
        `Unknown query parameter ${JSON.stringify(key.slice(0, 40))}; use types and since.`,
      );
    if (typeof query[key] !== 'string') throw new Rejection(CLOSE.badRequest, `Give ${key} once.`);
  }
  let types: ReadonlySet<string> | null = null;
  if (query.types !== undefined) {
    const parsed = parseTypeFilter(query.types as string);
    if ('error' in parsed) throw new Rejection(CLOSE.badRequest, `Bad types filter: ${parsed.error}.`);
    types = parsed.types;
  }
  const since = (query.since as string | undefined) ?? null;
  if (since !== null && !isId('evt', since))
    throw new Rejection(CLOSE.badRequest, 'since must be an event id (evt_...).');
  return { types, since };
}

class StreamConnection extends ReplayingSubscriber {
  readonly token: string;
  readonly socket: WebSocket;
  /** Answered the last ping. */
  alive = true;
  private readonly types: ReadonlySet<string> | null;
  private readonly options: StreamOptions;
  private corked = false;

  constructor(
    socket: WebSocket,
    principal: AgentPrincipal,
    token: string,
    types: ReadonlySet<string> | null,
    options: StreamOptions,
    detach: () => void,
  ) {
    super(principal.organizationId, options.maxQueuedEvents, detach);
    this.socket = socket;
    this.token = token;
    this.types = types;
    this.options = options;
  }

  protected wants(event: StreamEvent): boolean {
    return !this.types || this.types.has(event.type);
  }

  protected sendLive(event: StreamEvent): void {
    if (this.socket.bufferedAmount > this.options.maxBufferedBytes)
      return this.close(CLOSE.slowConsumer, `Slow consumer: more than ${this.options.maxBufferedBytes} bytes unread.`);
    this.send(event);
  }

  protected overflow(): void {
    this.close(
      CLOSE.slowConsumer,
      `Slow consumer: more than ${this.options.maxQueuedEvents} events behind during replay.`,
    );
  }

  /**
   * Sends history (lastSeq, upTo] page by page, then `ready`, then what the feed delivered
   * meanwhile; upTo is at least the feed's join point, so the two overlap rather than leave a gap.
   */
  async replay(events: EventsService, upTo: number): Promise<void> {
    const types = this.types ? [...this.types] : null;
    for (;;) {
      const rows = await events.readOrganizationRange(this.organizationId, this.lastSeq, upTo, types, REPLAY_PAGE);
      for (const row of rows) {
        if (!(await this.drained())) return;
        this.send(new StreamEvent(row));
      }
      if (rows.length < REPLAY_PAGE) break;
    }
    this.goLive(upTo, () => this.socket.send(READY, TEXT));
  }

  close(code: number, reason: string): void {
    if (this.isClosed) return;
    this.closed();
    closeSocket(this.socket, code, reason, this.options.closeGraceMs);
  }

  /** Replayed rows are of the wanted types already (the query filters them). */
  private send(event: StreamEvent): void {
    this.lastSeq = event.seq;
    this.corkUntilNextTick();
    this.socket.send(event.frame, TEXT);
  }

  /**
   * The feed hands over a whole batch synchronously: holding the TCP socket's writes until the
   * batch is done turns a burst of N events into one write per client instead of N.
   * (`_socket` is ws's net.Socket; without it frames are simply written one by one.)
   */
  private corkUntilNextTick(): void {
    const raw = (this.socket as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
    if (this.corked || !raw) return;
    this.corked = true;
    raw.cork();
    process.nextTick(() => {
      this.corked = false;
      raw.uncork();
    });
  }

  /** Waits (bounded) for the client to read its backlog; false when it was closed instead. */
  private async drained(): Promise<boolean> {
    const deadline = performance.now() + this.options.drainTimeoutMs; // elapsed real time, not a date
    while (!this.isClosed && this.socket.bufferedAmount > this.options.maxBufferedBytes) {
      if (performance.now() >= deadline) {
        this.close(
          CLOSE.slowConsumer,
          `Slow consumer: the replay backlog was not read within ${this.options.drainTimeoutMs} ms.`,
        );
        break;
      }
      await sleep(20);
    }
    return !this.isClosed;
  }
}

export interface StreamLog {
  error(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export class EventStreamHub {
  private readonly events: EventsService;
  private readonly authenticate: (token: string) => Promise<AgentPrincipal | null>;
  private readonly options: StreamOptions;
  private readonly log: StreamLog;
  private readonly cap: ConnectionCap;
  private readonly connections: HeartbeatSet<StreamConnection>;
  private draining = false;

  constructor(deps: {
    events: EventsService;
    authenticate: (token: string) => Promise<AgentPrincipal | null>;
    options?: Partial<StreamOptions>;
    log: StreamLog;
    cap: ConnectionCap;
  }) {
    ({ events: this.events, authenticate: this.authenticate, log: this.log, cap: this.cap } = deps);
    this.options = { ...DEFAULT_STREAM_OPTIONS, ...deps.options };
    this.connections = new HeartbeatSet(this.options.pingIntervalMs, () => this.heartbeat());
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /** Handles one upgraded socket from authentication to close. */
  async accept(socket: WebSocket, request: FastifyRequest): Promise<void> {
    if (this.draining)
      return closeSocket(socket, CLOSE.goingAway, 'The server is shutting down; reconnect.', this.options.closeGraceMs);
    let connection: StreamConnection | null = null;
    try {
      const token = credentialOf(request);
      const principal = checkPrincipal(await this.authenticate(token));
      const release = this.cap.tryAcquire(principal.organizationId);
      if (!release)
        throw new Rejection(
          CLOSE.tryAgainLater,
          `At most ${this.cap.max} concurrent event streams per organization; close one or retry later.`,
        );
      // Tied to the socket, not to the connection: every way out (a rejection below, a close by
      // either side, a terminate, an error) ends in the socket's 'close'.
      if (socket.readyState === socket.CLOSED) release();
      else socket.once('close', release);
      const { types, since } = queryOf(request);
      let sinceSeq: number | null = null;
      if (since !== null) {
        const row = await this.events.find(principal.organizationId, since);
        if (!row)
          throw new Rejection(
            CLOSE.badRequest,
            `since ${since} is not a retained event of this organization (unknown, or older than 7 days).`,
          );
        sinceSeq = row.seq;
      }
      // The end of the outbox as committed now: the shared reader may lag behind it by a wake.
      // Everything up to it is history (sent before ready); a stream without since starts there.
      const committed = await this.events.latestSeq();
      await this.events.feed.start();
      if (socket.readyState !== socket.OPEN || this.draining) return;
      const live = new StreamConnection(socket, principal, token, types, this.options, () => this.forget(live));
      connection = live;
      socket.on('pong', () => {
        live.alive = true;
      });
      socket.on('close', () => live.closed());
      const joinedAt = this.events.feed.subscribe(connection);
      connection.startAfter(sinceSeq ?? committed);
      this.connections.add(connection);
      await connection.replay(this.events, Math.max(joinedAt, committed));
    } catch (error) {
      if (error instanceof Rejection) {
        closeSocket(socket, error.closeCode, error.message, this.options.closeGraceMs);
        return;
      }
      // A database outage is temporary (1013 try again later); anything else is a bug (1011).
      const [code, reason] = isDatabaseUnavailable(error)
        ? [CLOSE.tryAgainLater, 'The database is unreachable; reconnect shortly']
        : [CLOSE.internal, 'Internal error; reconnect'];
      if (code === CLOSE.internal) this.log.error({ err: error }, 'event stream failed');
      else this.log.warn({ err: error }, 'event stream failed: database unavailable');
      if (connection) connection.close(code, `${reason} with since.`);
      else closeSocket(socket, code, `${reason}.`, this.options.closeGraceMs);
    }
  }

  /** Server drain: every client gets 1001 and should reconnect (with since) elsewhere; the last one stops the pings. */
  drain(): void {
    this.draining = true;
    for (const connection of this.connections)
      connection.close(CLOSE.goingAway, 'The server is shutting down; reconnect with since.');
  }

  private forget(connection: StreamConnection): void {
    this.events.feed.unsubscribe(connection);
    this.connections.delete(connection);
  }

  /** Pings every client, drops those that did not answer the last ping, re-checks credentials (revoked keys). */
  private heartbeat(): void {
    for (const connection of this.connections) {
      if (connection.isClosed) continue;
      if (!connection.alive) {
        connection.closed();
        connection.socket.terminate();
        continue;
      }
      connection.alive = false;
      connection.socket.ping();
      this.authenticate(connection.token).then(
        (principal) => {
          try {
            checkPrincipal(principal);
          } catch (error) {
            if (error instanceof Rejection) connection.close(error.closeCode, error.message);
          }
        },
        (error: unknown) => this.log.error({ err: error }, 'event stream re-authentication failed'),
      );
    }
  }
}
