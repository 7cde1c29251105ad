// The stream as a browser sees it: frames are read off the wire by a raw RFC 6455 client, so the
// opcode is checked directly (Node's ws client would hide a binary frame by stringifying it).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { activeOrganization, type TestApp } from '../../../test/harness.ts';
import { createCell } from '../../../test/support/cells.ts';
import { eventually, withStream } from '../../../test/support/stream-client.ts';

interface RawFrame {
  opcode: number;
  payload: Buffer;
}

/** Opens the stream over a plain TCP socket and parses the server's (unmasked) frames. */
async function rawStream(
  url: string,
  headers: Record<string, string>,
): Promise<{ frames: RawFrame[]; socket: Socket }> {
  const { hostname, port, pathname } = new URL(url);
  const socket = connect(Number(port), hostname);
  const request = [
    `GET ${pathname} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    'Upgrade: websocket',
    'Connection: Upgrade',
    `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
    'Sec-WebSocket-Version: 13',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  ].join('\r\n');
  socket.write(request);
  const frames: RawFrame[] = [];
  let buffer = Buffer.alloc(0);
  let upgraded = false;
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    if (!upgraded) {
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      assert.match(buffer.subarray(0, end).toString(), /^HTTP\/1\.1 101 /);
      buffer = buffer.subarray(end + 4);
      upgraded = true;
    }
    for (;;) {
      if (buffer.length < 2) return;
      let length = buffer[1] & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (buffer.length < 4) return;
        length = buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (buffer.length < 10) return;
        length = Number(buffer.readBigUInt64BE(2));
        offset = 10;
      }
      if (buffer.length < offset + length) return;
      frames.push({ opcode: buffer[0] & 0x0f, payload: buffer.subarray(offset, offset + length) });
      buffer = buffer.subarray(offset + length);
    }
  });
  await eventually(() => frames.length > 0, 'the ready frame');
  return { frames, socket };
}

describe('event stream frames on the wire', () => {
  let t: TestApp;
  let url: string;
  withStream((app, streamAt) => {
    t = app;
    url = streamAt;
  });

  for (const [label, credential] of [
    ['an Authorization header', (token: string) => ({ Authorization: `Bearer ${token}` })],
    ['the bearer subprotocol (browsers)', (token: string) => ({ 'Sec-WebSocket-Protocol': `bearer.${token}` })],
  ] as const) {
    it(`sends ready and events as text frames (opcode 1) with ${label}`, async () => {
      const org = await activeOrganization(t);
      const { frames, socket } = await rawStream(url, credential(org.apiKey));
      await createCell(t, org.headers, 'Wire check');
      await eventually(() => frames.length >= 2, 'the cell.created frame');
      socket.destroy();
      assert.deepEqual(
        frames.map((f) => f.opcode),
        [1, 1],
      );
      assert.deepEqual(JSON.parse(frames[0].payload.toString('utf8')), { type: 'ready' });
      const event = JSON.parse(frames[1].payload.toString('utf8'));
      assert.equal(event.type, 'event');
      assert.equal(event.event.type, 'cell.created');
    });
  }
});
