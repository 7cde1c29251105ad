// Device routes (X-Phone-Key): claim outbound messages by long-poll, report on them, upload inbound.
import { Type } from 'typebox';
import { deviceOf } from '../../http/auth.ts';
import { DEVICE_LONG_POLLS, type ConnectionCap } from '../../http/connection-caps.ts';
import { Body, Described, IdParam, Timestamp } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { DeliveryService } from './delivery.ts';
import type { InboundService } from './inbound.ts';
import { MediaUrls, normalizePhoneField, PhoneInput } from './schemas.ts';
import { LeasedMessage, Message } from './views.ts';
import { DEVICE_REPORTS } from './lifecycle.ts';

const OutboundQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'Most messages to claim, 1-50.' }),
  ),
  wait: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 30,
      default: 0,
      description: 'Seconds to wait for a message when none is queued, 0-30.',
    }),
  ),
});

const EventRequest = Body(
  {
    event_id: Type.String({
      minLength: 1,
      maxLength: 255,
      description: "The device's id for this report; a repeat changes nothing.",
    }),
    event: Type.Enum([...DEVICE_REPORTS]),
    occurred_at: Timestamp,
    error_code: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    error_message: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { examples: [{ event_id: 'report-7f3a', event: 'delivered', occurred_at: '2026-11-21T12:00:05.000Z' }] },
);

const InboundRequest = Body(
  {
    device_message_id: Type.String({
      minLength: 1,
      maxLength: 255,
      description: "The phone's id for the received text; a repeat upload returns the stored message.",
    }),
    from: PhoneInput,
    body: Type.String({ maxLength: 1600, description: 'May be empty only when media_urls has items.' }),
    media_urls: Type.Optional(MediaUrls),
    received_at: Timestamp,
  },
  {
    examples: [
      {
        device_message_id: 'sms-20931',
        from: '+14155550199',
        body: 'Running 10 minutes late.',
        received_at: '2026-11-21T12:01:00.000Z',
      },
    ],
  },
);

const LeasedMessageList = Type.Object(
  { messages: Type.Array(LeasedMessage) },
  { $id: 'LeasedMessageList', description: 'Messages leased to the device, oldest first; empty when none is queued.' },
);

const iso = (timestamp: string) => new Date(timestamp).toISOString();

/** `longPolls`: concurrent waiting claims per device (a claim without wait holds nothing). */
export function registerDeviceMessageRoutes(
  app: App,
  delivery: DeliveryService,
  inbound: InboundService,
  longPolls: ConnectionCap,
): void {
  app.get(
    '/v1/device/messages/outbound',
    {
      config: { auth: 'device' },
      schema: {
        operationId: 'claimOutboundMessages',
        tags: ['Device'],
        summary: 'Claim queued messages to send',
        description: `Leases the cell's oldest queued messages to this device for 120 s, at most send_rate_per_minute SMS segments per minute and daily_send_limit per 24 hours (nothing while the phone is paused or quarantined). With wait, long-polls until a message arrives; a device holds at most ${DEVICE_LONG_POLLS} waiting claims at once (429 \`rate_limited\` with Retry-After beyond).`,
        querystring: OutboundQuery,
        response: {
          200: Described(LeasedMessageList, 'The messages now leased to this device; empty when none arrived in time.'),
        },
      },
    },
    async (request, reply) => {
      const deviceId = deviceOf(request).deviceId;
      const wait = (request.query.wait ?? 0) * 1000;
      // A waiting claim holds a slot until it answers (or the device hangs up, which ends the wait).
      const release = wait > 0 ? longPolls.admit(deviceId) : () => {};
      // Stop waiting when the device hangs up; 'close' also fires after our answer, harmlessly.
      const gone = new AbortController();
      const hangUp = () => gone.abort();
      reply.raw.once('close', hangUp);
      if (request.raw.socket?.destroyed) hangUp(); // hung up before the handler started
      try {
        const claimed = await delivery.claim(deviceId, request.query.limit ?? 10, wait, gone.signal);
        // Draining: the server closes only idle connections, so this one must not stay open.
        if (delivery.shuttingDown) reply.header('connection', 'close');
        return claimed;
      } finally {
        release();
        reply.raw.off('close', hangUp);
      }
    },
  );

  app.post(
    '/v1/device/messages/:message_id/events',
    {
      config: { auth: 'device', errors: ['conflict'] },
      schema: {
        operationId: 'reportMessageEvent',
        tags: ['Device'],
        summary: 'Report what became of a leased message',
        description:
          'sending, sent, delivered (also directly after sending) or failed. A repeated event_id answers the message unchanged; a final state never changes. 409 when the message is not leased to this device.',
        params: IdParam('message_id', 'msg'),
        body: EventRequest,
        response: { 200: Described(Message, 'The message after the report.') },
      },
    },
    async (request) => {
      const { event_id, event, occurred_at, error_code, error_message } = request.body;
      const report =
        event === 'failed'
          ? { event, occurredAt: iso(occurred_at), errorCode: error_code, errorMessage: error_message }
          : { event, occurredAt: iso(occurred_at) };
      return delivery.report(deviceOf(request).deviceId, request.params.message_id, { event_id, ...report });
    },
  );

  app.post(
    '/v1/device/messages/inbound',
    {
      config: { auth: 'device', errors: ['conflict'] },
      preValidation: normalizePhoneField('from'),
      schema: {
        operationId: 'uploadInboundMessage',
        tags: ['Device'],
        summary: 'Upload a received message',
        description:
          '201 with the stored message; 200 with the same message when device_message_id was uploaded before.',
        body: InboundRequest,
        response: {
          200: Described(Message, 'The message stored by an earlier upload of this device_message_id.'),
          201: Described(Message, 'The stored inbound message.'),
        },
      },
    },
    async (request, reply) => {
      const { created, message } = await inbound.receive(deviceOf(request).deviceId, {
        ...request.body,
        received_at: iso(request.body.received_at),
      });
      return reply.code(created ? 201 : 200).send(message);
    },
  );
}
