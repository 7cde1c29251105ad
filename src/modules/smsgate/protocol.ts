// The SMSGate app's device protocol (contract §13) as the app at v1.68.0 speaks it: its request
// bodies, and the shapes Cellgate answers. Field names follow the app's source (named per field in
// docs/device-protocol.md); nothing here holds a rule of Cellgate's.
import { Type, type Static } from 'typebox';
import { finalExpiryOf } from '../messages/delivery.ts';
import type { MessagesTable } from '../messages/tables.ts';

/** GatewayApi.kt SimCard. */
export type SimCard = Static<typeof SimCard>;
const SimCard = Type.Object({
  slotIndex: Type.Integer({ minimum: 0, maximum: 7 }),
  simNumber: Type.Integer({ minimum: 1, maximum: 8 }),
  phoneNumber: Type.Optional(Type.Union([Type.String({ maxLength: 32 }), Type.Null()])),
  carrierName: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
  iccid: Type.Optional(Type.Union([Type.String({ maxLength: 32 }), Type.Null()])),
});

/**
 * The app lists every active subscription (helpers/SubscriptionsHelper.kt getActiveSimCards), so a
 * phone with a third SIM or an eSIM beside two cards sends more than two; Cellgate keeps a line
 * for the first two (MAX_SIM_LINES, docs/decisions.md). Android numbers slots 0 to 7.
 */
const SimCards = Type.Array(SimCard, { maxItems: 8 });

/** A phone carries one or two SIM lines (contract §13): those of its first two SIM cards. */
export const MAX_SIM_LINES = 2;
const PushToken = Type.Optional(Type.Union([Type.String({ maxLength: 4096 }), Type.Null()]));

/** GatewayApi.kt DeviceRegisterRequest. */
export const RegisterRequest = Type.Object({
  name: Type.String({ maxLength: 200 }),
  pushToken: PushToken,
  simCards: Type.Optional(SimCards),
});

/** GatewayApi.kt DevicePatchRequest. */
export const DevicePatchRequest = Type.Object({
  id: Type.Optional(Type.String({ maxLength: 64 })),
  pushToken: PushToken,
  simCards: Type.Optional(Type.Union([SimCards, Type.Null()])),
});

/** The app's states (domain/ProcessingState.kt) and what each means for a message here: null when it moves nothing. */
export const STATE_EVENTS = {
  Pending: null,
  Cancelling: null,
  Cancelled: null,
  Processed: 'sending',
  Sent: 'sent',
  Delivered: 'delivered',
  Failed: 'failed',
} as const;
export type ProcessingState = keyof typeof STATE_EVENTS;

const State = Type.Enum(Object.keys(STATE_EVENTS) as ProcessingState[]);
const AppDate = Type.String({ maxLength: 40 });

/** GatewayApi.kt MessagePatchRequest, a list of them. */
export const MessagePatchRequest = Type.Array(
  Type.Object({
    id: Type.String({ minLength: 1, maxLength: 64 }),
    state: State,
    recipients: Type.Optional(
      Type.Array(
        Type.Object({
          phoneNumber: Type.String({ maxLength: 32 }),
          state: State,
          error: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
        }),
        { maxItems: 10 },
      ),
    ),
    states: Type.Optional(Type.Record(Type.String({ maxLength: 20 }), AppDate)),
  }),
  { maxItems: 100 },
);

export const MessagesQuery = Type.Object({ order: Type.Optional(Type.Enum(['fifo', 'lifo'])) });

/** The webhook events Cellgate asks the app for (webhooks/domain/WebHookEvent.kt). */
export const WEBHOOK_EVENTS = [
  'sms:received',
  'sms:sent',
  'sms:delivered',
  'sms:failed',
  'mms:received',
  'system:ping',
] as const;

/** The path the app posts every webhook to (one for all: the body names its event). */
export const WEBHOOK_PATH = '/webhooks/events';

/** How often the app pings (system:ping), in seconds: within the 120 s after which a phone is offline. */
export const PING_INTERVAL_S = 60;

/** The app's settings map (settings/SettingsService.kt): only the modules Cellgate sets. */
export function settingsMap(device: { send_rate_per_minute: number; signing_key: string | null }) {
  return {
    messages: {
      // MessagesSettings.kt: limit_period / limit_value; the app counts messages, Cellgate segments.
      limit_period: 'PerMinute',
      limit_value: device.send_rate_per_minute,
      // MessagesSettings.kt PROCESSING_ORDER (LIFO by default): Cellgate hands out the oldest first,
      // so the app is told to ask for that order.
      processing_order: 'FIFO',
    },
    // PingSettings.kt.
    ping: { interval_seconds: PING_INTERVAL_S },
    // WebhooksSettings.kt.
    webhooks: { internet_required: true, retry_count: 15, signing_key: device.signing_key },
  };
}

export function webhookList(serverUrl: string) {
  return WEBHOOK_EVENTS.map((event) => ({
    id: `cellgate-${event.replace(':', '-')}`,
    url: `${serverUrl}${WEBHOOK_PATH}`,
    event,
  }));
}

/**
 * GatewayApi.kt Message, from a leased message. `validUntil` is when Cellgate could fail the
 * message for good (its lease and the attempts left), not the lease end: the app fails an unsent
 * message by then on its own clock and keeps its first claim's validUntil (GatewayService.kt), so
 * a phone clock two minutes fast, or one stalled claim, would fail the text.
 */
export function appMessage(
  message: Pick<MessagesTable, 'id' | 'to_number' | 'body' | 'created_at' | 'lease_expires_at' | 'attempts'>,
  simNumber: number | null,
) {
  return {
    id: message.id,
    message: message.body,
    textMessage: { text: message.body },
    phoneNumbers: [message.to_number],
    simNumber,
    withDeliveryReport: true,
    isEncrypted: false,
    validUntil: finalExpiryOf(message),
    createdAt: message.created_at,
  };
}

/** The webhook body the app posts (webhooks/domain/WebHookEventDTO.kt). */
export const WebhookBody = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  webhookId: Type.Optional(Type.String({ maxLength: 64 })),
  event: Type.String({ maxLength: 40 }),
  deviceId: Type.String({ minLength: 1, maxLength: 64 }),
  payload: Type.Record(Type.String(), Type.Unknown()),
});
