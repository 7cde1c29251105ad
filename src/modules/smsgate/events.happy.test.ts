// The SMSGate app's SSE channel over a real socket (contract §13): MessageEnqueued as soon as a
// message is queued for the phone (and at once for one already waiting), nothing for another
// phone's sends, and the stream ends when the server closes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { useApp, type TestApp } from '../../../test/harness.ts';
import { mobileLine } from '../../../test/support/mobile.ts';

type Line = Awaited<ReturnType<typeof mobileLine>>;

/** An SSE client as the app's SSEManager.kt: GET with the bearer token, frames collected as text. */
class SseClient {
  text = '';
  status = 0;
  readonly ended: Promise<void>;
  private readonly request: http.ClientRequest;
  private waiters: (() => void)[] = [];

  constructor(port: number, token: string) {
    let end = () => {};
    this.ended = new Promise((resolve) => (end = resolve));
    this.request = http.get(
      { host: '127.0.0.1', port, path: '/mobile/v1/events', headers: { authorization: `Bearer ${token}` } },
      (response) => {
        this.status = response.statusCode ?? 0;
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          this.text += chunk;
          for (const waiter of this.waiters.splice(0)) waiter();
        });
        response.on('end', end);
        response.on('close', end);
      },
    );
    this.request.on('error', end);
  }

  events(name: string): number {
    return this.text.split('\n\n').filter((frame) => frame.startsWith(`event: ${name}\n`)).length;
  }

  async until(check: () => boolean, ms = 5_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out; stream so far: ${JSON.stringify(this.text)}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  close(): void {
    this.request.destroy();
  }
}

async function port(t: TestApp): Promise<number> {
  if (!t.app.server.listening) await t.app.listen({ port: 0, host: '127.0.0.1' });
  return (t.app.server.address() as AddressInfo).port;
}

const sendOn = (t: TestApp, line: Line) =>
  t.app.inject({
    method: 'POST',
    url: `/v1/cells/${line.cell.id}/messages/send`,
    headers: line.org.headers,
    payload: { to: '+14155550199', body: 'hello' },
  });

describe('SMSGate SSE', () => {
  const t = useApp();

  it('sends MessageEnqueued as soon as a message is queued, and not for another phone', async () => {
    const line = await mobileLine(t);
    const other = await mobileLine(t);
    const client = new SseClient(await port(t), line.phone.token);
    await client.until(() => client.status === 200 && t.services.smsgateEvents.openStreams > 0);
    await sendOn(t, other);
    await sendOn(t, line);
    const started = performance.now();
    await client.until(() => client.events('MessageEnqueued') === 1);
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 1_000, `woken in ${elapsed} ms`);
    assert.match(client.text, /event: MessageEnqueued\ndata: \{\}\n\n/);
    // The app pulls it; a second send announces again.
    await t.app.inject({ url: '/mobile/v1/message', headers: line.phone.headers });
    await sendOn(t, line);
    await client.until(() => client.events('MessageEnqueued') === 2);
    client.close();
  });

  it('announces a message already waiting when the app connects', async () => {
    const line = await mobileLine(t);
    await sendOn(t, line);
    const client = new SseClient(await port(t), line.phone.token);
    await client.until(() => client.events('MessageEnqueued') === 1);
    client.close();
  });

  it('refuses a stream without a valid device token', async () => {
    const client = new SseClient(await port(t), 'cg_dev_00000000000000000000000000000000');
    await client.ended;
    assert.equal(client.status, 401);
  });
});
