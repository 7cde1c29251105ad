// A Server-Sent Events response: the console's live views and the SMSGate app's channel. openSse
// takes the response over from Fastify and sends the headers; the stream writes events and
// comments, drops a client that stopped reading, and ends.
import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface SseOptions {
  /** The `retry:` sent first: how long a browser's EventSource waits before it reconnects. */
  retryMs?: number;
  /** Unread bytes past which the stream is ended (the client reconnects); no limit when absent. */
  maxBufferedBytes?: number;
  /** Tell browsers not to sniff the body (x-content-type-options). */
  nosniff?: boolean;
}

export class SseStream {
  private readonly raw: ServerResponse;
  private readonly maxBufferedBytes: number;
  private readonly closeListeners: (() => void)[] = [];
  private closed = false;

  constructor(raw: ServerResponse, maxBufferedBytes = Infinity) {
    this.raw = raw;
    this.maxBufferedBytes = maxBufferedBytes;
    raw.once('close', () => this.end());
  }

  /** `listener` runs once, when the stream ends: the client went, or end() was called. */
  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  /** An event, with an id if the client may resume from it (Last-Event-ID). JSON has no raw line breaks, so the data is one `data:` line. */
  send(event: string, data: unknown, id?: number): void {
    this.write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** A comment (`text` follows the colon): keeps proxies from closing a quiet stream. */
  comment(text: string): void {
    this.write(`:${text}\n\n`);
  }

  /** Ends the response; the close listeners run now, not when the client has read the rest. */
  end(): void {
    if (this.closed) return;
    this.closed = true;
    this.raw.end();
    for (const listener of this.closeListeners) listener();
  }

  private write(text: string): void {
    if (this.closed) return;
    if (this.raw.writableLength > this.maxBufferedBytes) this.end();
    else this.raw.write(text);
  }
}

/** Takes the response over as an event stream; null (and the response destroyed) when the client has gone already. */
export function openSse(request: FastifyRequest, reply: FastifyReply, options: SseOptions = {}): SseStream | null {
  reply.hijack();
  if (request.raw.destroyed) {
    reply.raw.destroy();
    return null;
  }
  reply.raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    ...(options.nosniff && { 'x-content-type-options': 'nosniff' }),
    // nginx and similar proxies would otherwise hold the frames back.
    'x-accel-buffering': 'no',
  });
  // The headers go now: a client may count the stream open when they arrive (the SMSGate app does).
  reply.raw.flushHeaders();
  if (options.retryMs !== undefined) reply.raw.write(`retry: ${options.retryMs}\n\n`);
  return new SseStream(reply.raw, options.maxBufferedBytes);
}
