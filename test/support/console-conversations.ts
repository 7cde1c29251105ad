// What the Cells section's tests share: a signed-in organization with an active line, page
// fetches with its cookie, and a real HTTP client of the live stream (Server-Sent Events).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from '../harness.ts';
import { activeLine, type Line } from './messages.ts';
import { postForm, signInConsole, type ConsoleSignIn } from './console.ts';
import { page } from './page.ts';

export interface ConsoleLine extends Line {
  signIn: ConsoleSignIn;
}

/** A new organization with an active cell and its device, signed in to the console. */
export async function consoleLine(t: TestApp, org?: Line['org']): Promise<ConsoleLine> {
  const line = await activeLine(t, {}, org);
  return { ...line, signIn: await signInConsole(t, line.org.email) };
}

export const getPage = (t: TestApp, url: string, signIn?: ConsoleSignIn) =>
  t.app.inject({ method: 'GET', url, headers: signIn?.headers ?? {} });

export const threadUrl = (cellId: string, participant: string) =>
  `/console/cells/${cellId}/conversations/${encodeURIComponent(participant)}`;

/** Posts the new-message form of the cell page (with the session's CSRF token unless given). */
export const postSend = (
  t: TestApp,
  line: ConsoleLine,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) =>
  postForm(
    t,
    `/console/cells/${line.cell.id}/messages`,
    { csrf_token: line.signIn.csrf, ...fields },
    { ...line.signIn.headers, ...headers },
  );

/** Messages of the cell as the API lists them (newest first), e.g. `?direction=outbound`. */
export async function apiMessages(
  t: TestApp,
  line: Line,
  query = '',
): Promise<Array<{ id: string; to: string; body: string; status: string }>> {
  const response = await t.app.inject({ url: `/v1/cells/${line.cell.id}/messages${query}`, headers: line.org.headers });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().messages;
}

/** The live stream address the page carries for its script (data-live-url). */
export function liveUrlOf(html: string): string {
  const url = page(html).document.querySelector('[data-live-url]')?.getAttribute('data-live-url');
  assert.ok(url, 'the page names its live stream');
  return url;
}

/** The ids of the thread's messages (its log's items, `message-<id>` for the live script), in page order. */
export const threadIds = (html: string) =>
  page(html)
    .queryAllByRole('listitem')
    .filter((item) => item.id.startsWith('message-'))
    .map((item) => item.id.slice('message-'.length));

export interface SseFrame {
  id?: string;
  event: string;
  data: Record<string, unknown> & { thread?: string; conversation?: string; participant?: string; state?: string };
}

/** One live stream over a real connection: frames as they come; close() hangs up. */
export class LiveClient {
  readonly frames: SseFrame[] = [];
  status = 0;
  private readonly request: http.ClientRequest;
  private buffer = '';
  private waiters: (() => void)[] = [];
  ended = false;

  private constructor(t: TestApp, path: string, headers: Record<string, string>) {
    const { port } = t.app.server.address() as AddressInfo;
    this.request = http.get({ host: '127.0.0.1', port, path, headers, agent: false }, (response) => {
      this.status = response.statusCode ?? 0;
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => this.take(chunk));
      response.on('end', () => this.finish());
      response.on('close', () => this.finish());
      this.notify();
    });
    this.request.on('error', () => this.finish());
  }

  /** Connects (the app must be listening) and waits for the response's status. */
  static async open(t: TestApp, path: string, headers: Record<string, string>): Promise<LiveClient> {
    const client = new LiveClient(t, path, headers);
    await client.until(() => client.status !== 0 || client.ended, 'the response');
    return client;
  }

  /** Connects and waits until the replay is out and the stream is live. */
  static async ready(t: TestApp, path: string, headers: Record<string, string>): Promise<LiveClient> {
    const client = await LiveClient.open(t, path, headers);
    assert.equal(client.status, 200);
    await client.until(() => client.frames.some((f) => f.event === 'ready'), 'the ready frame');
    return client;
  }

  // 30 s: a condition that holds returns at once, and a loaded CI runner (four test processes on
  // two cores, PostgreSQL beside them) once took over 5 s to carry a heartbeat to the stream.
  async until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!condition()) {
      const left = deadline - performance.now();
      if (left <= 0)
        throw new Error(`timed out waiting for ${what}; frames: ${JSON.stringify(this.frames.map((f) => f.event))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The first message-update frame that satisfies `match` (waiting for it). */
  async messageUpdate(match: (frame: SseFrame) => boolean, what: string): Promise<SseFrame> {
    await this.until(() => this.frames.some((f) => f.event === 'message-update' && match(f)), what);
    return this.frames.find((f) => f.event === 'message-update' && match(f)) as SseFrame;
  }

  close(): void {
    this.request.destroy();
  }

  private take(chunk: string): void {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const fields = new Map<string, string>();
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
      }
      const event = fields.get('event');
      if (event) this.frames.push({ id: fields.get('id'), event, data: JSON.parse(fields.get('data') ?? '{}') });
    }
    this.notify();
  }

  private finish(): void {
    this.ended = true;
    this.notify();
  }

  private notify(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }
}

/** Listens on an ephemeral loopback port once per app (for live streams). */
export async function listening(t: TestApp): Promise<void> {
  if (!t.app.server.listening) await t.app.listen({ port: 0, host: '127.0.0.1' });
}
