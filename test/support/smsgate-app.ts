// A test double of the SMSGate Android app (capcom6/android-sms-gateway, tag v1.68.0) in its
// private-server mode with the SSE-only channel, written from the app's source (read, not copied)
// so that Cellgate's `/mobile/v1` is checked against what the app sends and reads, not against
// Cellgate's own idea of it. Each method names the source file it follows; paths are under
// app/src/main/java/me/capcom/smsgateway/. Wire details (Gson's JSON and dates, the signature,
// ids, redaction) are in smsgate-wire.ts, the SSE receiver in smsgate-sse.ts.
//
// The app's HTTP client (modules/gateway/GatewayApi.kt) is Ktor with `expectSuccess = true`: a
// non-2xx answer throws. The double does the same (AppRequestError, with the status and body),
// except for webhooks, which the app posts from a queue and retries on any non-2xx
// (modules/webhooks/workers/WebhookQueueProcessorWorker.kt): those answers are returned.
import type { Clock } from '../../src/lib/clock.ts';
import { EventsConnection, type EventsOptions } from './smsgate-sse.ts';
import { gsonDate, gsonJson, inboxMessageId, nanoId, readGsonDate, redact, webhookSignature } from './smsgate-wire.ts';

/** domain/ProcessingState.kt */
export const PROCESSING_STATES = [
  'Pending',
  'Cancelling',
  'Cancelled',
  'Processed',
  'Sent',
  'Delivered',
  'Failed',
] as const;
export type ProcessingState = (typeof PROCESSING_STATES)[number];

/** modules/webhooks/domain/WebHookEvent.kt (the @SerializedName of each). */
export const WEBHOOK_EVENTS = [
  'sms:received',
  'sms:sent',
  'sms:delivered',
  'sms:failed',
  'system:ping',
  'sms:data-received',
  'mms:received',
  'mms:downloaded',
  'app:started',
  'sms:cancelled',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** A SIM as the phone knows it (helpers/SubscriptionsHelper.kt getActiveSimCards: slot 0-based, simNumber slot+1). */
export interface Sim {
  slotIndex: number;
  phoneNumber: string | null;
  carrierName?: string | null;
  iccid?: string | null;
  /** Android's subscription id (feeds the inbox message hash); slot + 1 by default. */
  subscriptionId?: number;
}

/** GatewayApi.DeviceRegisterResponse */
export interface Registration {
  id: string;
  token: string;
  login: string;
  password: string | null;
}

/** GatewayApi.Message as the app's Gson reads it. */
export interface ServerMessage {
  id: string;
  text: string | null;
  phoneNumbers: string[];
  simNumber: number | null;
  withDeliveryReport: boolean | null;
  validUntil: Date | null;
  createdAt: Date | null;
  state: ProcessingState | null;
  raw: Record<string, unknown>;
}

/** GatewayApi.WebHook */
export interface ServerWebhook {
  id: string;
  url: string;
  event: WebhookEvent;
}

/** The phone's own copy of a message (data/entities/Message*.kt: recipients and the states log). */
interface LocalMessage {
  id: string;
  simNumber: number | null;
  partsCount: number | null;
  recipients: { phoneNumber: string; state: ProcessingState; error: string | null }[];
  /** MessageState rows (messageId, state) → updatedAt; insert-or-ignore keeps the first time. */
  states: Map<ProcessingState, Date>;
  state: ProcessingState;
  /** SendParams.validUntil of the message as first taken in (GatewayService.kt processMessage). */
  validUntil: Date | null;
}

export class AppRequestError extends Error {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly body: string;
  constructor(method: string, path: string, status: number, body: string) {
    super(`${method} ${path}: ${status} ${body}`);
    this.method = method;
    this.path = path;
    this.status = status;
    this.body = body;
  }
}

/** A webhook as the app posted it, to look at or post again (a retry: same body, new timestamp). */
export interface WebhookDelivery {
  url: string;
  body: string;
  event: WebhookEvent;
  id: string;
  status: number;
  answer: string;
}

export interface SmsGateAppOptions {
  /** The app's "API URL" setting (gateway.cloud_url): Cellgate's `server_url`, ending /mobile/v1. */
  serverUrl: string;
  /**
   * Where that URL's origin actually listens, when it differs (tests: the base URL is
   * http://cellgate.test, the app listens on 127.0.0.1:<port>). Every URL on the server's origin,
   * webhooks included, is sent there.
   */
  reach?: string;
  /** The phone's clock (webhook timestamps and payload dates). */
  clock?: Clock;
  /** The phone's time zone as minutes east of UTC: its Gson writes dates in it (default +07:00). */
  utcOffsetMinutes?: number;
  /** Build.MANUFACTURER/Build.PRODUCT (GatewayService.registerDevice's device name). */
  name?: string;
  sims?: Sim[];
}

const USER_AGENT = 'me.capcom.smsgateway/1.68.0';

export class SmsGateApp {
  readonly serverUrl: string;
  readonly clock: Clock;
  readonly utcOffsetMinutes: number;
  readonly name: string;
  sims: Sim[];
  registration: Registration | null = null;
  /** The settings map as last applied (modules/settings/SettingsService.kt), by module. */
  settings: Record<string, Record<string, unknown>> = {};
  webhooks: ServerWebhook[] = [];
  /** Every webhook posted, in order. */
  readonly deliveries: WebhookDelivery[] = [];
  /** modules/webhooks/WebhooksSettings.kt: a random 8-character key until the server's settings set one. */
  signingKey = nanoId(8);
  private readonly reach: string | null;
  private readonly messages = new Map<string, LocalMessage>();
  private events: EventsConnection | null = null;

  constructor(options: SmsGateAppOptions) {
    this.serverUrl = options.serverUrl.replace(/\/$/, '');
    this.reach = options.reach ?? null;
    this.clock = options.clock ?? { now: () => new Date() };
    this.utcOffsetMinutes = options.utcOffsetMinutes ?? 7 * 60;
    this.name = options.name ?? 'Google/sdk_gphone64_x86_64';
    this.sims = options.sims ?? [];
  }

  get token(): string {
    if (!this.registration) throw new Error('the app is not registered');
    return this.registration.token;
  }

  // ---------------------------------------------------------------- HTTP

  private address(url: string): string {
    if (!this.reach) return url;
    const target = new URL(url);
    if (target.origin !== new URL(this.serverUrl).origin) return url;
    return this.reach.replace(/\/$/, '') + target.pathname + target.search;
  }

  /** One request as GatewayApi.kt sends it (Ktor + Gson, `expectSuccess = true`); the parsed body. */
  private async call(
    method: string,
    path: string,
    auth: string | null,
    body?: unknown,
  ): Promise<{ status: number; json: unknown }> {
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: 'application/json' };
    if (auth) headers.authorization = auth;
    if (body !== undefined) headers['content-type'] = 'application/json; charset=UTF-8';
    const response = await fetch(this.address(`${this.serverUrl}${path}`), {
      method,
      headers,
      body: body === undefined ? undefined : gsonJson(body),
    });
    const text = await response.text();
    if (response.status < 200 || response.status > 299) throw new AppRequestError(method, path, response.status, text);
    return { status: response.status, json: text === '' ? null : (JSON.parse(text) as unknown) };
  }

  private bearer(): string {
    return `Bearer ${this.token}`;
  }

  // ---------------------------------------------------------------- device

  /**
   * modules/gateway/GatewayService.kt registerDevice + GatewayApi.kt deviceRegister: POST /device
   * with `Authorization: Bearer <private token>` (RegistrationMode.Anonymous with the private
   * token set) or `Authorization: Code <code>` (RegistrationMode.WithCode), body
   * `{name, pushToken, simCards}` with pushToken null under SSE_ONLY (so left out by Gson) and
   * each SIM's phoneNumber, carrierName and iccid redacted. Expects 2xx and
   * `{id, token, login, password}`.
   */
  async register(credentials: { token: string } | { code: string }, sims: Sim[] = this.sims): Promise<Registration> {
    this.sims = sims;
    const auth = 'token' in credentials ? `Bearer ${credentials.token}` : `Code ${credentials.code}`;
    const { json } = await this.call('POST', '/device', auth, {
      name: this.name,
      pushToken: null,
      simCards: this.simCards(),
    });
    const body = json as Record<string, unknown>;
    for (const field of ['id', 'token', 'login'] as const)
      if (typeof body?.[field] !== 'string') throw new Error(`register: no string ${field} in ${JSON.stringify(json)}`);
    if (body.password !== undefined && body.password !== null && typeof body.password !== 'string')
      throw new Error(`register: password is neither a string nor null: ${JSON.stringify(json)}`);
    this.registration = {
      id: body.id as string,
      token: body.token as string,
      login: body.login as string,
      password: (body.password as string | null | undefined) ?? null,
    };
    return this.registration;
  }

  /** GatewayService.kt toDTO(): GatewayApi.SimCard per active subscription, redacted. */
  simCards() {
    return this.sims.map((sim) => ({
      slotIndex: sim.slotIndex,
      simNumber: sim.slotIndex + 1,
      phoneNumber: redact(sim.phoneNumber),
      carrierName: redact(sim.carrierName ?? null),
      iccid: redact(sim.iccid ?? null),
    }));
  }

  /** GatewayApi.kt getDevice: GET /device (Bearer device token); the app reads `externalIp` only. */
  async getDevice(): Promise<{ externalIp: string } & Record<string, unknown>> {
    const { json } = await this.call('GET', '/device', this.bearer());
    const body = json as Record<string, unknown>;
    if (typeof body?.externalIp !== 'string') throw new Error(`GET /device: no externalIp in ${JSON.stringify(json)}`);
    return body as { externalIp: string };
  }

  /**
   * GatewayService.kt updateDevice + GatewayApi.kt devicePatch: PATCH /device with
   * `{id, pushToken, simCards}` (the registration's id; SIMs redacted as on register).
   */
  async patchDevice(change: { pushToken?: string | null; sims?: Sim[] } = {}): Promise<void> {
    if (change.sims) this.sims = change.sims;
    await this.call('PATCH', '/device', this.bearer(), {
      id: this.registration?.id,
      pushToken: change.pushToken ?? null,
      simCards: this.simCards(),
    });
  }

  // ---------------------------------------------------------------- settings and webhooks

  /** GatewayApi.kt getSettings + workers/SettingsUpdateWorker.kt: GET /settings, then applied. */
  async fetchSettings(): Promise<Record<string, unknown>> {
    const { json } = await this.call('GET', '/settings', this.bearer());
    if (json === null || typeof json !== 'object' || Array.isArray(json))
      throw new Error(`GET /settings is not a map: ${JSON.stringify(json)}`);
    this.applySettings(json as Record<string, unknown>);
    return json as Record<string, unknown>;
  }

  /**
   * modules/settings/SettingsService.kt update: each known module's value must be a map and its
   * importer accept it (messages/MessagesSettings.kt, ping/PingSettings.kt,
   * webhooks/WebhooksSettings.kt, gateway/GatewaySettings.kt, logs, encryption); a value the
   * importer refuses throws, as in the app (the worker then retries). Unknown modules and keys
   * are ignored.
   */
  applySettings(map: Record<string, unknown>): void {
    for (const [module, value] of Object.entries(map)) {
      const check = SETTINGS_IMPORTERS[module];
      if (!check) continue;
      if (value === null || typeof value !== 'object' || Array.isArray(value))
        throw new Error(`settings: ${module} is not a map: ${JSON.stringify(value)}`);
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) check(key, item);
      this.settings[module] = { ...this.settings[module], ...(value as Record<string, unknown>) };
      const key = (value as Record<string, unknown>).signing_key;
      if (module === 'webhooks' && key !== undefined) this.signingKey = key === null ? nanoId(8) : String(key);
    }
  }

  /** MessagesSettings.kt processingOrder: LIFO unless the settings say FIFO. */
  get processingOrder(): 'lifo' | 'fifo' {
    return this.settings.messages?.processing_order === 'FIFO' ? 'fifo' : 'lifo';
  }

  /**
   * GatewayApi.kt getWebHooks + workers/WebhooksUpdateWorker.kt: GET /webhooks, a list of
   * `{id, url, event}` that replaces the app's Cloud-source webhooks. An event Gson cannot map
   * to WebHookEvent would be null in the app: the double refuses it.
   */
  async fetchWebhooks(): Promise<ServerWebhook[]> {
    const { json } = await this.call('GET', '/webhooks', this.bearer());
    if (!Array.isArray(json)) throw new Error(`GET /webhooks is not a list: ${JSON.stringify(json)}`);
    this.webhooks = json.map((item: Record<string, unknown>) => {
      if (typeof item.id !== 'string' || typeof item.url !== 'string')
        throw new Error(`webhook without id or url: ${JSON.stringify(item)}`);
      if (!(WEBHOOK_EVENTS as readonly unknown[]).includes(item.event))
        throw new Error(`webhook event the app does not know: ${JSON.stringify(item)}`);
      return { id: item.id, url: item.url, event: item.event as WebhookEvent };
    });
    return this.webhooks;
  }

  // ---------------------------------------------------------------- events

  /**
   * modules/gateway/services/SSEForegroundService.kt + helpers/SSEManager.kt: opens
   * GET {serverUrl}/events with the device token (the app does so after registering when it has
   * no FCM token, i.e. SSE_ONLY). Resolves once the first connect is known (open or failed).
   */
  async openEvents(options: Pick<EventsOptions, 'onConnected' | 'reconnectDelayMs'> = {}): Promise<EventsConnection> {
    this.events?.close();
    this.events = new EventsConnection({
      url: this.address(`${this.serverUrl}/events`),
      token: this.token,
      ...options,
    });
    await this.events.start();
    return this.events;
  }

  // ---------------------------------------------------------------- messages

  /**
   * GatewayApi.kt getMessages: GET /message?order=lifo|fifo (the order of MessagesSettings,
   * lowercase), read as GatewayApi.Message; then GatewayService.kt processMessage: a message in
   * Pending or without state is taken into the phone's queue (Pending, recipients Pending), one
   * the phone already has gets its state sent again (SendStateWorker), other states are skipped.
   */
  async pullMessages(order: 'lifo' | 'fifo' = this.processingOrder): Promise<ServerMessage[]> {
    const { json } = await this.call('GET', `/message?order=${order}`, this.bearer());
    if (!Array.isArray(json)) throw new Error(`GET /message is not a list: ${JSON.stringify(json)}`);
    const messages = json.map((item) => readMessage(item as Record<string, unknown>));
    for (const message of messages) {
      if (message.state !== null && message.state !== 'Pending') continue;
      if (this.messages.has(message.id)) {
        await this.reportState(message.id);
        continue;
      }
      const now = this.clock.now();
      this.messages.set(message.id, {
        id: message.id,
        simNumber: message.simNumber,
        partsCount: null,
        recipients: message.phoneNumbers.map((phoneNumber) => ({ phoneNumber, state: 'Pending', error: null })),
        states: new Map([['Pending', now]]),
        state: 'Pending',
        validUntil: message.validUntil,
      });
    }
    return messages;
  }

  /**
   * modules/messages/MessagesService.kt sendSMS then processStateIntent: the phone moves every
   * recipient of a message to `state` (Processed when handed to Android, Sent on the sent intent,
   * Delivered or Failed on the delivery report, Failed with an error), recomputes the message's
   * state (data/entities/MessageWithRecipients.kt), logs it with its time, and — as
   * modules/gateway/EventsReceiver.kt does on MessageStateChangedEvent — PATCHes it to the server
   * (workers/SendStateWorker.kt) and posts the matching webhook if the server listed one
   * (modules/webhooks/EventsReceiver.kt: sms:sent, sms:delivered, sms:failed).
   */
  async advance(
    id: string,
    state: 'Processed' | 'Sent' | 'Delivered' | 'Failed',
    error: string | null = null,
  ): Promise<WebhookDelivery[]> {
    const message = this.local(id);
    const now = this.clock.now();
    // MessagesService.kt sendMessage: a message whose validUntil has passed by the phone's clock
    // when its turn comes is failed ("TTL expired"), never handed to Android.
    if (state === 'Processed' && message.state === 'Pending' && message.validUntil && message.validUntil < now)
      return this.advance(id, 'Failed', 'TTL expired');
    // MessagesDao: a Failed recipient never changes again (`state <> 'Failed'`).
    for (const recipient of message.recipients)
      if (recipient.state !== 'Failed') Object.assign(recipient, { state, error });
    if (state === 'Processed') message.partsCount ??= 1;
    const derived = derivedState(message.recipients);
    if (derived !== message.state && message.state !== 'Failed') {
      message.state = derived;
      if (!message.states.has(derived)) message.states.set(derived, now);
    }
    await this.reportState(id);
    const event = ({ Sent: 'sms:sent', Delivered: 'sms:delivered', Failed: 'sms:failed' } as const)[
      state as 'Sent' | 'Delivered' | 'Failed'
    ];
    if (!event) return [];
    const sim = this.sims.find((s) => s.slotIndex + 1 === message.simNumber);
    const deliveries: WebhookDelivery[] = [];
    for (const recipient of message.recipients) {
      const at = gsonDate(now, this.utcOffsetMinutes);
      const common = {
        messageId: id,
        sender: sim?.phoneNumber ?? null,
        recipient: recipient.phoneNumber,
        simNumber: message.simNumber,
        phoneNumber: recipient.phoneNumber,
      };
      // Gson writes a subclass's own fields before its superclass's (payload/SmsEventPayload.kt).
      const payload =
        event === 'sms:sent'
          ? { partsCount: message.partsCount ?? -1, sentAt: at, ...common }
          : event === 'sms:delivered'
            ? { deliveredAt: at, ...common }
            : { failedAt: at, reason: error ?? 'Unknown', ...common };
      deliveries.push(...(await this.sendWebhook(event, payload)));
    }
    return deliveries;
  }

  /**
   * workers/SendStateWorker.kt + GatewayService.kt sendState: PATCH /message with a list of one
   * GatewayApi.MessagePatchRequest `{id, state, recipients: [{phoneNumber, state, error}],
   * states: {<ProcessingState>: <date>}}` (every state the message went through, Pending
   * included; errors only on recipients).
   */
  async reportState(id: string): Promise<void> {
    await this.reportStates([this.patchOf(id)]);
  }

  /** The MessagePatchRequest the app would send now for message `id`. */
  patchOf(id: string): Record<string, unknown> {
    const message = this.local(id);
    return {
      id: message.id,
      state: message.state,
      recipients: message.recipients.map((r) => ({ phoneNumber: r.phoneNumber, state: r.state, error: r.error })),
      states: Object.fromEntries(
        [...message.states].map(([state, at]) => [state, gsonDate(at, this.utcOffsetMinutes)]),
      ),
    };
  }

  /** GatewayApi.kt patchMessages: PATCH /message with the list as given (bad-input tests write their own). */
  async reportStates(list: unknown[]): Promise<number> {
    const { status } = await this.call('PATCH', '/message', this.bearer(), list);
    return status;
  }

  private local(id: string): LocalMessage {
    const message = this.messages.get(id);
    if (!message) throw new Error(`the phone has no message ${id} (pull it first)`);
    return message;
  }

  // ---------------------------------------------------------------- webhooks the app posts

  /**
   * modules/webhooks/WebHooksService.kt emit + workers/WebhookQueueProcessorWorker.kt +
   * plugins/PayloadSingingPlugin.kt: for each webhook the server listed for `event`, POST to its
   * url the envelope `{id, webhookId, event, deviceId, payload}` (domain/WebHookEventDTO.kt; id a
   * fresh nanoid, deviceId the registration's id) as Gson writes it, with
   * `Content-Type: application/json`, `X-Timestamp` (Unix seconds) and `X-Signature` (hex
   * HMAC-SHA256 of body + timestamp under the signing key). `tamper` lets bad-input tests change
   * what is sent. No webhook listed for the event: nothing is sent, as in the app.
   */
  async sendWebhook(event: WebhookEvent, payload: Record<string, unknown>, tamper: WebhookTamper = {}) {
    const deliveries: WebhookDelivery[] = [];
    for (const webhook of this.webhooks.filter((w) => w.event === event)) {
      const id = tamper.id ?? nanoId();
      const body = gsonJson({
        id,
        webhookId: webhook.id,
        event,
        deviceId: tamper.deviceId ?? this.registration?.id,
        payload,
      });
      deliveries.push(await this.post(webhook.url, body, event, id, tamper));
    }
    return deliveries;
  }

  /** The app's retry of a delivery: the same stored body, signed again with a fresh timestamp. */
  async resend(delivery: WebhookDelivery, tamper: WebhookTamper = {}): Promise<WebhookDelivery> {
    return this.post(delivery.url, delivery.body, delivery.event, delivery.id, tamper);
  }

  private async post(url: string, body: string, event: WebhookEvent, id: string, tamper: WebhookTamper) {
    const timestamp = tamper.timestamp ?? String(Math.floor(this.clock.now().getTime() / 1000));
    const headers: Record<string, string> = {
      'content-type': 'application/json; charset=UTF-8',
      'user-agent': USER_AGENT,
      'x-timestamp': timestamp,
      'x-signature': tamper.signature ?? webhookSignature(tamper.signingKey ?? this.signingKey, body, timestamp),
    };
    for (const name of tamper.omitHeaders ?? []) delete headers[name];
    const sent = typeof tamper.body === 'function' ? tamper.body(body) : (tamper.body ?? body);
    const response = await fetch(this.address(url), { method: 'POST', headers, body: sent });
    const delivery = { url, body: sent, event, id, status: response.status, answer: await response.text() };
    this.deliveries.push(delivery);
    return delivery;
  }

  /**
   * modules/receiver/ReceiverService.kt process: an SMS arriving on SIM `simNumber` (1-based)
   * becomes `sms:received` with payload/SmsEventPayload.kt SmsReceived: `{message, receivedAt,
   * messageId (the inbox message's hash), sender, recipient (that SIM's number, unredacted, when
   * the app may read it), simNumber, phoneNumber (= sender)}`.
   */
  async receiveSms(
    sms: { simNumber: number; sender: string; text: string; receivedAt?: Date },
    tamper: WebhookTamper = {},
  ) {
    const sim = this.sims.find((s) => s.slotIndex + 1 === sms.simNumber);
    const date = sms.receivedAt ?? this.clock.now();
    return this.sendWebhook(
      'sms:received',
      {
        message: sms.text,
        receivedAt: gsonDate(date, this.utcOffsetMinutes),
        messageId: inboxMessageId(sms.sender, date, sim ? (sim.subscriptionId ?? sim.slotIndex + 1) : null, sms.text),
        sender: sms.sender,
        recipient: sim?.phoneNumber ?? null,
        simNumber: sms.simNumber,
        phoneNumber: sms.sender,
      },
      tamper,
    );
  }

  /**
   * ReceiverService.kt for an MMS notification: `mms:received` with payload/MmsReceivedPayload.kt
   * `{transactionId, subject, size, contentClass, receivedAt, messageId, sender, recipient,
   * simNumber, phoneNumber}` (messageId: the MMS's message id, else its transaction id).
   */
  async receiveMms(
    mms: { simNumber: number; sender: string; transactionId: string; subject?: string; size: number },
    tamper: WebhookTamper = {},
  ) {
    const sim = this.sims.find((s) => s.slotIndex + 1 === mms.simNumber);
    return this.sendWebhook(
      'mms:received',
      {
        transactionId: mms.transactionId,
        subject: mms.subject ?? null,
        size: mms.size,
        contentClass: null,
        receivedAt: gsonDate(this.clock.now(), this.utcOffsetMinutes),
        messageId: mms.transactionId,
        sender: mms.sender,
        recipient: sim?.phoneNumber ?? null,
        simNumber: mms.simNumber,
        phoneNumber: mms.sender,
      },
      tamper,
    );
  }

  /**
   * modules/ping/services/PingForegroundService.kt → modules/webhooks/EventsReceiver.kt:
   * `system:ping` with `{health: HealthResponse}` (domain/HealthResponse.kt: version, releaseId,
   * status, checks), the checks of modules/health/HealthService.kt: messages:failed,
   * connection:status/transport/cellular, battery:level (percent) and battery:charging (flags:
   * 2 AC, 4 USB, +1 charging; monitors/BatteryMonitor.kt). No signal strength in it.
   */
  async ping(state: { batteryLevel: number; charging?: 'ac' | 'usb' | false; failedLastHour?: number }) {
    const flags = (state.charging === 'ac' ? 2 : state.charging === 'usb' ? 4 : 0) + (state.charging ? 1 : 0);
    const failed = state.failedLastHour ?? 0;
    const level = state.batteryLevel < 10 ? 'fail' : state.batteryLevel < 25 ? 'warn' : 'pass';
    const check = (status: string, observedValue: number, observedUnit: string, description: string) => ({
      status,
      observedValue,
      observedUnit,
      description,
    });
    const checks = {
      'messages:failed': check(failed > 0 ? 'warn' : 'pass', failed, 'messages', 'Failed messages for last hour'),
      'connection:status': check('pass', 1, 'boolean', 'Internet connection status'),
      'connection:transport': check('pass', 1, 'flags', 'Network transport type'),
      'connection:cellular': check('pass', 4, 'index', 'Cellular network type'),
      'battery:level': check(level, Math.floor(state.batteryLevel), 'percent', 'Battery level in percent'),
      'battery:charging': check('pass', flags, 'flags', 'Is the phone charging?'),
    };
    const statuses = Object.values(checks).map((c) => c.status);
    const status = statuses.includes('fail') ? 'fail' : statuses.includes('warn') ? 'warn' : 'pass';
    return this.sendWebhook('system:ping', { health: { version: '1.68.0', releaseId: 1600, status, checks } });
  }

  /** Stops the SSE subscription (GatewayService.stop). */
  stop(): void {
    this.events?.close();
    this.events = null;
  }
}

/** What a bad-input test changes in a webhook the app would otherwise send correctly. */
export interface WebhookTamper {
  id?: string;
  deviceId?: string;
  timestamp?: string;
  signature?: string;
  signingKey?: string;
  /** The bytes sent instead of the signed body (a body changed after signing), or a change of it. */
  body?: string | ((signed: string) => string);
  omitHeaders?: ('x-signature' | 'x-timestamp')[];
}

/** data/entities/MessageWithRecipients.kt `state`. */
function derivedState(recipients: LocalMessage['recipients']): ProcessingState {
  const any = (s: ProcessingState) => recipients.some((r) => r.state === s);
  const all = (s: ProcessingState) => recipients.every((r) => r.state === s);
  if (any('Pending')) return 'Pending';
  if (any('Cancelling')) return 'Cancelling';
  if (any('Cancelled')) return 'Cancelled';
  if (any('Processed')) return 'Processed';
  if (all('Failed')) return 'Failed';
  if (all('Delivered')) return 'Delivered';
  return 'Sent';
}

/** GatewayApi.Message as Gson maps the server's JSON; content as its `content` getter resolves it. */
function readMessage(item: Record<string, unknown>): ServerMessage {
  if (typeof item?.id !== 'string') throw new Error(`message without a string id: ${JSON.stringify(item)}`);
  if (!Array.isArray(item.phoneNumbers) || !item.phoneNumbers.every((p) => typeof p === 'string'))
    throw new Error(`message ${item.id}: phoneNumbers is not a list of strings`);
  const textMessage = item.textMessage as { text?: unknown } | null | undefined;
  const text =
    typeof textMessage?.text === 'string' ? textMessage.text : typeof item.message === 'string' ? item.message : null;
  if (text === null && (item.dataMessage === undefined || item.dataMessage === null))
    throw new Error(`message ${item.id}: Invalid message content`);
  const optional = <T>(field: string, type: string): T | null => {
    const value = item[field];
    if (value === undefined || value === null) return null;
    if (typeof value !== type) throw new Error(`message ${item.id}: ${field} is not a ${type}`);
    return value as T;
  };
  const state = item.state;
  return {
    id: item.id,
    text,
    phoneNumbers: item.phoneNumbers as string[],
    simNumber: optional<number>('simNumber', 'number'),
    withDeliveryReport: optional<boolean>('withDeliveryReport', 'boolean'),
    validUntil: readGsonDate(item.validUntil, 'validUntil'),
    createdAt: readGsonDate(item.createdAt, 'createdAt'),
    // Gson maps an enum name it does not know to null, which processMessage treats as new.
    state: (PROCESSING_STATES as readonly unknown[]).includes(state) ? (state as ProcessingState) : null,
    raw: item,
  };
}

const number = (value: unknown) => value === null || Number.isFinite(Number(String(value)));
const oneOf = (names: string[]) => (value: unknown) => value === null || names.includes(String(value));
/** Key checks of each module's Importer (a key the importer ignores passes). */
const SETTINGS_IMPORTERS: Record<string, (key: string, value: unknown) => void> = {
  messages: importer({
    send_interval_min: number,
    send_interval_max: number,
    limit_period: oneOf(['Disabled', 'PerMinute', 'Per30Minutes', 'PerHour', 'PerDay']),
    limit_value: (v) => v === null || Number(String(v)) >= 0,
    sim_selection_mode: oneOf(['OSDefault', 'RoundRobin', 'Random']),
    processing_order: oneOf(['LIFO', 'FIFO']),
    log_lifetime_days: (v) => v === null || Number(String(v)) >= 1,
  }),
  ping: importer({ interval_seconds: number }),
  logs: importer({ lifetime_days: number }),
  webhooks: importer({
    internet_required: () => true,
    retry_count: (v) => v === null || Number(String(v)) >= 1,
    signing_key: () => true,
  }),
  gateway: importer({
    cloud_url: (v) => v === null || String(v).startsWith('https://'),
    private_token: () => true,
    notification_channel: oneOf(['AUTO', 'SSE_ONLY']),
  }),
  encryption: importer({ passphrase: () => true }),
};

function importer(checks: Record<string, (value: unknown) => boolean>) {
  return (key: string, value: unknown) => {
    const check = checks[key];
    if (check && !check(value)) throw new Error(`settings: the app refuses ${key} = ${JSON.stringify(value)}`);
  };
}
