import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startReceiver, type Receiver } from '../../../test/support/webhook-receiver.ts';
import { EgressTimeout, httpEgress } from './egress.ts';

describe('httpEgress', () => {
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(() => receiver.stop());

  const request = (host: string, timeoutMs = 2000) => ({
    url: new URL(`http://${host}:${receiver.port}/in?x=1`),
    target: { address: '127.0.0.1', family: 4 as const },
    headers: { 'content-type': 'application/json', 'webhook-id': 'evt_1' },
    body: '{"a":1}',
    timeoutMs,
  });

  it('connects to the pinned address whatever the host name resolves to, keeping the Host header', async () => {
    receiver.respond = () => ({ status: 202, headers: { 'retry-after': '7' }, body: 'queued' });
    const response = await httpEgress(request('hooks.invalid'));
    assert.deepEqual(response, { status: 202, retryAfter: '7', body: 'queued' });
    const [received] = receiver.requests.slice(-1);
    assert.equal(received.url, '/in?x=1');
    assert.equal(received.headers.host, `hooks.invalid:${receiver.port}`);
    assert.equal(received.headers['content-length'], '7');
    assert.equal(received.body, '{"a":1}');
  });

  it('keeps the first 4 KiB of a long answer', async () => {
    receiver.respond = () => ({ status: 200, body: 'é'.repeat(5_000) });
    const response = await httpEgress(request('hooks.invalid'));
    assert.equal(Buffer.byteLength(response.body ?? ''), 4096);
    assert.equal(response.body, 'é'.repeat(2048));
  });

  it('gives up after the timeout', async () => {
    receiver.respond = () => 'hang';
    await assert.rejects(httpEgress(request('hooks.invalid', 100)), EgressTimeout);
  });
});
