// The SMSGate app's server-sent events receiver, for the app's test double: a real HTTP request
// on a socket, read as the app reads it. Follows, at tag v1.68.0:
//  - helpers/SSEManager.kt: GET {serverUrl}/events with `Authorization: Bearer <device token>`,
//    onOpen resets the reconnect count, a close or failure reconnects after 5 s (attempts 1-5),
//    30 s (6-10), then 60 s;
//  - OkHttp's okhttp-sse (RealEventSource, ServerSentEventReader), which the manager uses: a
//    non-2xx answer or a Content-Type other than text/event-stream is a failure; lines end in
//    CRLF, CR or LF; `data:`/`event:`/`id:`/`retry:` with one optional space; anything else (a
//    `:keepalive` comment) is skipped; a blank line dispatches the event only when it had data;
//  - modules/gateway/services/SSEForegroundService.kt: each connect pulls messages; an event's
//    type must be an ExternalEventType name (modules/events/ExternalEventType.kt), a missing type
//    is MessageEnqueued, any other type is logged as "Unknown event type" and dropped.
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** modules/events/ExternalEventType.kt */
export const EXTERNAL_EVENT_TYPES = [
  'MessageEnqueued',
  'WebhooksUpdated',
  'MessagesExportRequested',
  'SettingsUpdated',
  'MessageCancelled',
] as const;
export type ExternalEventType = (typeof EXTERNAL_EVENT_TYPES)[number];

export interface ServerEvent {
  type: ExternalEventType;
  data: string;
}

/** SSEManager.scheduleReconnect's delays by attempt (1-based). */
export function appReconnectDelayMs(attempt: number): number {
  if (attempt > 10) return 60_000;
  if (attempt > 5) return 30_000;
  return 5_000;
}

export interface EventsOptions {
  url: string;
  token: string;
  /** Called on each successful open (the app starts PullMessagesWorker). */
  onConnected?: () => void;
  /** Delay before reconnect attempt N; the app's by default. Tests pass a short one. */
  reconnectDelayMs?: (attempt: number) => number;
}

/**
 * The parsing state of okhttp-sse's ServerSentEventReader for one connection: fed text as it
 * arrives, it calls `dispatch(id, type, data)` per complete event.
 */
export class EventStreamParser {
  private pending = '';
  private data: string[] | null = null;
  private type: string | null = null;
  private id: string | null = null;
  private lastId: string | null = null;

  private readonly dispatch: (id: string | null, type: string | null, data: string) => void;

  constructor(dispatch: (id: string | null, type: string | null, data: string) => void) {
    this.dispatch = dispatch;
  }

  push(text: string, ended = false): void {
    this.pending += text;
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.pending);
      if (!match) break;
      // A CR at the very end may be the first half of a CRLF still on its way.
      if (match[0] === '\r' && match.index === this.pending.length - 1 && !ended) break;
      const line = this.pending.slice(0, match.index);
      this.pending = this.pending.slice(match.index + match[0].length);
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data !== null) {
        this.lastId = this.id;
        this.dispatch(this.id, this.type, this.data.join('\n'));
      }
      this.data = null;
      this.type = null;
      this.id = this.lastId;
      return;
    }
    const field = /^(data|event|id|retry)(?::( ?)(.*))?$/.exec(line);
    if (!field) return; // a comment (":keepalive") or an unknown field: skipped
    const value = field[3] ?? '';
    if (field[1] === 'data') (this.data ??= []).push(value);
    else if (field[1] === 'event') this.type = value === '' ? null : value;
    else if (field[1] === 'id') this.id = value === '' ? null : value;
  }
}

/**
 * One SSE subscription of the app: connects, parses, reconnects on close or failure (unless
 * closed by the test). `events` collects the routed events; `unknown` what the app would have
 * logged as "Unknown event type"; `failures` each failed connect (status or content type).
 */
export class EventsConnection {
  readonly events: ServerEvent[] = [];
  readonly unknown: { type: string | null; data: string }[] = [];
  readonly failures: string[] = [];
  connects = 0;
  private attempts = 0;
  private closed = false;
  private current: ClientRequest | null = null;
  private response: IncomingMessage | null = null;
  private timer: NodeJS.Timeout | null = null;
  private waiters: (() => void)[] = [];

  private readonly options: EventsOptions;

  constructor(options: EventsOptions) {
    this.options = options;
  }

  /** Connects (SSEManager.connect); resolves once the first open or failure is known. */
  start(): Promise<void> {
    return new Promise((resolve) => {
      this.connect(resolve);
    });
  }

  private connect(settled: () => void = () => {}): void {
    if (this.closed) return settled();
    const url = new URL(this.options.url);
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method: 'GET',
      headers: { authorization: `Bearer ${this.options.token}`, accept: 'text/event-stream' },
    });
    this.current = request;
    // One reconnect per connection, whichever of failure, error or close comes first.
    let reconnecting = false;
    const reconnect = () => {
      if (reconnecting) return;
      reconnecting = true;
      this.scheduleReconnect();
    };
    request.on('response', (response) => {
      this.response = response;
      const type = String(response.headers['content-type'] ?? '');
      const status = response.statusCode ?? 0;
      if (status < 200 || status > 299 || !/^text\/event-stream\s*(;|$)/i.test(type)) {
        this.failures.push(status < 200 || status > 299 ? `status ${status}` : `Invalid content-type: ${type}`);
        response.resume();
        reconnect();
        settled();
        return this.notify();
      }
      this.attempts = 0;
      this.connects += 1;
      this.options.onConnected?.();
      settled();
      this.notify();
      const parser = new EventStreamParser((_id, type, data) => this.route(type, data));
      const decoder = new TextDecoder('utf-8');
      response.on('data', (chunk: Buffer) => parser.push(decoder.decode(chunk, { stream: true })));
      response.on('end', () => parser.push(decoder.decode(), true));
      response.on('error', () => {});
      // onClosed (the server ended the stream) or onFailure (the connection broke): both reconnect.
      response.on('close', () => {
        reconnect();
        this.notify();
      });
    });
    request.on('error', (error) => {
      this.failures.push(error.message);
      reconnect();
      settled();
      this.notify();
    });
    request.end();
  }

  /** SSEForegroundService.processEvent: a missing type is MessageEnqueued; an unknown one is dropped. */
  private route(type: string | null, data: string): void {
    const known = (EXTERNAL_EVENT_TYPES as readonly string[]).includes(type ?? 'MessageEnqueued');
    if (known) this.events.push({ type: (type ?? 'MessageEnqueued') as ExternalEventType, data });
    else this.unknown.push({ type, data });
    this.notify();
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    this.attempts += 1;
    const delay = (this.options.reconnectDelayMs ?? appReconnectDelayMs)(this.attempts);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** Drops the connection from the network side (as a dead Wi-Fi does); the app reconnects. */
  drop(): void {
    this.response?.destroy();
    this.current?.destroy();
  }

  /** SSEManager.disconnect: no reconnect after this. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.drop();
    this.notify();
  }

  /** Resolves when `ready()` holds, re-checked after each event, open or failure; fails after `timeoutMs`. */
  async until(ready: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!ready()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`SSE: timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits for the `count`-th event of `type` (counting from the start of this connection). */
  async next(type: ExternalEventType, count = this.events.filter((e) => e.type === type).length + 1) {
    await this.until(() => this.events.filter((e) => e.type === type).length >= count, `${type} #${count}`);
    return this.events.filter((e) => e.type === type)[count - 1];
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
