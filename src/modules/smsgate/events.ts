// The SMSGate app's SSE channel (GET /mobile/v1/events; app helpers/SSEManager.kt): `event:
// MessageEnqueued` as soon as a message waits, so the app pulls it (GET /message), and a
// `:keepalive` comment every 15 s. A send wakes the stream at once (messages/wakeups.ts, NOTIFY
// across processes); a 1 s re-check finds anything a lost notification missed.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { openSse, type SseStream } from '../../http/sse.ts';
import type { DeliveryService } from '../messages/delivery.ts';

export const KEEPALIVE_MS = 15_000;
/** How often a stream looks for messages queued by another process. */
export const RECHECK_MS = 1_000;

export class SmsEvents {
  private readonly delivery: DeliveryService;
  private open_ = 0;

  constructor(deps: { delivery: DeliveryService }) {
    this.delivery = deps.delivery;
  }

  /** Streams open in this process (a gauge; tests wait on it). */
  get openStreams(): number {
    return this.open_;
  }

  async open(deviceId: string, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    // The app counts the stream open (SSEManager.kt onOpen) when the headers arrive.
    const sse = openSse(request, reply);
    if (!sse) return;
    const gone = new AbortController();
    sse.onClose(() => gone.abort());
    this.open_ += 1;
    try {
      await this.stream(deviceId, sse, gone.signal);
    } finally {
      this.open_ -= 1;
      sse.end();
    }
  }

  private async stream(deviceId: string, sse: SseStream, signal: AbortSignal): Promise<void> {
    let lastWrite = performance.now();
    let announced = false;
    for (;;) {
      if (signal.aborted || this.delivery.shuttingDown) return;
      const { cellIds, waiting } = await this.delivery.waiting(deviceId);
      // Announce once per batch of waiting messages; a new send wakes the stream and announces again.
      if (waiting && !announced) {
        sse.send('MessageEnqueued', {});
        lastWrite = performance.now();
      }
      announced = waiting;
      if (performance.now() - lastWrite >= KEEPALIVE_MS) {
        sse.comment('keepalive');
        lastWrite = performance.now();
      }
      // A send for the cell wakes the stream at once (and is announced even if earlier ones wait).
      if (await this.delivery.waitForSend(cellIds ?? deviceId, RECHECK_MS, signal)) announced = false;
    }
  }
}
