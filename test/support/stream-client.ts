// A real WebSocket client for the event stream tests: collects frames, waits for them, records the close.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { WebSocket } from 'ws';
import { after, before } from 'node:test';
import { startApp, type StartOptions, type TestApp } from '../harness.ts';

export interface Frame {
  type: string;
  event?: { id: string; type: string; created_at: string; organization_id: string; data: Record<string, unknown> };
}

/** Listens on an ephemeral loopback port (once per app); the stream's ws:// URL. */
export async function streamUrl(t: TestApp): Promise<string> {
  if (!t.app.server.listening) await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  return `ws://127.0.0.1:${port}/v1/events/stream`;
}

/** Registers before/after hooks for a suite: a fresh listening app and its stream URL, closed after. */
export function withStream(ready: (t: TestApp, url: string) => void, options: StartOptions = {}): void {
  let app: TestApp | undefined;
  before(async () => {
    app = await startApp(options);
    ready(app, await streamUrl(app));
  });
  after(() => app?.close());
}

export class StreamClient {
  readonly socket: WebSocket;
  readonly frames: Frame[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  pings = 0;
  private waiters: (() => void)[] = [];

  constructor(url: string, options: { headers?: Record<string, string>; protocols?: string[] } = {}) {
    this.socket = new WebSocket(url, options.protocols ?? [], { headers: options.headers });
    this.socket.on('message', (data) => {
      this.frames.push(JSON.parse(String(data)) as Frame);
      this.notify();
    });
    this.socket.on('ping', () => {
      this.pings += 1;
      this.notify();
    });
    this.socket.on('error', () => {});
    this.closed = new Promise((resolve) => {
      this.socket.on('close', (code, reason) => {
        this.notify();
        resolve({ code, reason: String(reason) });
      });
    });
  }

  static async ready(
    url: string,
    options: { headers?: Record<string, string>; protocols?: string[] } = {},
  ): Promise<StreamClient> {
    const client = new StreamClient(url, options);
    await client.until(() => client.frames.some((f) => f.type === 'ready'), 'the ready frame');
    return client;
  }

  /** The event envelopes received so far, in arrival order. */
  get events(): NonNullable<Frame['event']>[] {
    return this.frames.filter((f) => f.type === 'event').map((f) => f.event!);
  }

  /** Resolves when `condition` holds (checked on every frame); fails after `timeoutMs` of real time. */
  async until(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      const remaining = deadline - Date.now();
      if (remaining <= 0)
        throw new Error(`timed out waiting for ${what}; frames: ${JSON.stringify(this.frames).slice(0, 500)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(remaining, 100));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async eventCount(n: number, timeoutMs = 5000): Promise<NonNullable<Frame['event']>[]> {
    await this.until(() => this.events.length >= n, `${n} events (have ${this.events.length})`, timeoutMs);
    return this.events;
  }

  close(): void {
    this.socket.terminate();
  }

  private notify(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }
}

/** Connects and waits for the server to close the socket; the close code and reason. */
export async function rejected(url: string, options: { headers?: Record<string, string>; protocols?: string[] } = {}) {
  const client = new StreamClient(url, options);
  const closed = await client.closed;
  return { ...closed, frames: client.frames };
}

/**
 * Polls `condition` (server-side state) until it holds; fails after `timeoutMs` of real time
 * (generous: a condition that holds ends the wait at once, and CI runners are loaded).
 */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Asserts that events reached a stream because NOTIFY woke its process, not because the 2 s
 * safety-net poll found them: each within the poll's interval, and the median well within it.
 * One slow request on a loaded runner (663 ms once) must not fail the check; events only the poll
 * found would take 1 s on average, and three of five under 500 ms happen 1 time in 10.
 */
export function assertWokenByNotify(tookMs: number[]): void {
  const sorted = tookMs.toSorted((x, y) => x - y);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  assert.ok(
    sorted.at(-1)! < 1900 && median < 500,
    `events took ${tookMs.join(', ')} ms: woken by the poll, not NOTIFY`,
  );
}
