// The device protocol (docs/device-protocol.md) once, for every kind of phone: heartbeat, the
// long-poll claim loop, reports retried with the same event_id, inbound uploads, pacing, and
// stopping on a rotated key (401). What a phone does with a message is a DeviceDriver (the
// simulator, Termux). Node 22 APIs, no native addons: it also runs on the phone.
import { randomUUID } from 'node:crypto';

export interface ClaimedMessage {
  id: string;
  to: string;
  body: string;
  /** SMS segments (the server paces in segments; so does the phone). */
  segments?: number;
  media_urls?: string[];
  lease_expires_at?: string;
}

export interface DeviceConfig {
  device_id: string;
  cell_id: string | null;
  phone_number: string;
  send_rate_per_minute: number;
  /** SMS segments per 24 hours (the server enforces it; shown by doctor). */
  daily_send_limit?: number;
  /** Why the server hands this phone nothing now (paused by the operator, or quarantined). */
  hold?: { code: string; reason: string } | null;
  server_time: string;
}

// retries: report attempts repeated after a network error, 429 or 5xx (same event_id).
const STAT_NAMES = [
  'heartbeats',
  'polls',
  'claimed',
  'sent',
  'delivered',
  'failed',
  'inbound',
  'retries',
  'errors',
] as const;
export type DeviceStats = Record<(typeof STAT_NAMES)[number], number>;

export type DeviceEvent = 'sending' | 'sent' | 'delivered' | 'failed';

export interface HeartbeatBody {
  battery_pct?: number;
  charging?: boolean;
  signal_dbm?: number;
  app_version?: string;
  capabilities?: PhoneCapabilities;
}

/** What a phone can do, stated in every heartbeat (docs/device-protocol.md). */
export interface PhoneCapabilities {
  delivery_reports: boolean;
  mms_send: boolean;
  mms_receive: boolean;
}

export interface InboundText {
  deviceMessageId?: string;
  from: string;
  body: string;
  mediaUrls?: string[];
  receivedAt?: string;
}

export interface Answer {
  status: number;
  body: Record<string, unknown>;
  retryAfterMs: number | null;
}

/** A report or an inbound upload, as it goes over the wire (also what a durable queue stores). */
export interface OutgoingCall {
  kind: 'event' | 'inbound';
  path: string;
  body: Record<string, unknown>;
  /** For events: the message and event, for onReport. */
  messageId?: string;
  event?: DeviceEvent;
}

/**
 * Where reports and inbound uploads go. The default sends at once with up to 8 attempts; the
 * Termux agent puts them in a durable queue instead (device-state.ts) that survives restarts.
 */
export interface CallSink {
  /** Sends (or durably queues) `call`; true when it was accepted or queued. */
  submit(call: OutgoingCall): Promise<{ accepted: boolean; answer: Answer | null }>;
}

/** What the protocol offers a driver while it handles a message or runs. */
export interface DriverContext {
  /** The latest heartbeat answer. */
  readonly config: DeviceConfig;
  readonly stats: DeviceStats;
  readonly signal: AbortSignal;
  log(line: string): void;
  /** Reports what became of a claimed message (counted in stats once accepted); false when the service refused it. */
  report(message: ClaimedMessage, event: DeviceEvent, error?: { code: string; message: string }): Promise<boolean>;
  /** Uploads (or queues) a received text; throws when the service refused it. */
  uploadInbound(text: InboundText): Promise<{ status: number; message: Record<string, unknown> }>;
}

export interface DeviceDriver {
  /** The heartbeat fields this phone can tell (battery, charging, signal, app version). */
  telemetry(): Promise<HeartbeatBody>;
  /** What this phone can do: stated in every heartbeat, even when telemetry() fails. */
  readonly capabilities: PhoneCapabilities;
  /** Sends one claimed message and reports what became of it through `context.report`. */
  deliver(message: ClaimedMessage, context: DriverContext): Promise<void>;
  /** Background work after the first heartbeat (e.g. polling the SMS inbox); ends when `context.signal` aborts. */
  run?(context: DriverContext): Promise<void>;
}

export interface ProtocolOptions {
  baseUrl: string;
  key: string;
  /** Long-poll `wait` in seconds (0..30). */
  pollWaitSeconds?: number;
  /** Claim `limit` per poll. */
  claimLimit?: number;
  /** Concurrent claim loops on this key (a phone app runs one; tests use more to race the server). */
  pollers?: number;
  heartbeatIntervalMs?: number;
  /** Hold each send until fewer than send_rate_per_minute segments were sent in the last 60 s. */
  paceSends?: boolean;
  /**
   * A random pause between two sends, drawn in [min, max] ms (a phone sending at a perfectly even
   * beat looks like a bot to the carrier). The pause runs from the previous send.
   */
  sendJitterMs?: { min: number; max: number };
  /** Source of the jitter, [0, 1). */
  random?: () => number;
  /** Keep calling the first heartbeat through network errors and 5xx (a phone booting before its network). */
  retryFirstHeartbeat?: boolean;
  fetch?: typeof fetch;
  logger?: (line: string) => void;
  /** Source of occurred_at / received_at (defaults to the wall clock). */
  now?: () => Date;
  /** Called once per message handed to this device by a claim. */
  onClaim?: (message: ClaimedMessage) => void;
  /** Called after the service accepted a report (2xx). */
  onReport?: (messageId: string, event: DeviceEvent) => void;
  /** Where reports and uploads go; by default straight to the service with retries. */
  sink?: CallSink;
}

export interface RunningDevice {
  /** The first heartbeat answer: which device, cell and number this key is. */
  readonly config: DeviceConfig;
  readonly stats: DeviceStats;
  /** Resolves when the device stops (stop(), or a fatal answer such as a rotated key). */
  readonly stopped: Promise<void>;
  /** Why it stopped by itself (a rotated key), if it did. */
  readonly fatal: () => FatalDeviceError | null;
  uploadInbound(text: InboundText): Promise<{ status: number; message: Record<string, unknown> }>;
  /** Stops polling, finishes the messages in hand (their reports), and resolves when idle. */
  stop(): Promise<void>;
}

const DEFAULTS = {
  pollWaitSeconds: 25,
  claimLimit: 10,
  pollers: 1,
  heartbeatIntervalMs: 30_000,
  paceSends: false,
  sendJitterMs: { min: 0, max: 0 },
  retryFirstHeartbeat: false,
};
export const REPORT_ATTEMPTS = 8;
export const MAX_BACKOFF_MS = 5_000;
/** An empty poll answered faster than this means the server is not holding the poll (rate cap): pace. */
const EMPTY_POLL_PACE_MS = 1_000;

/** A 401: the key is unknown or was rotated. Nothing but a new key helps. */
export class FatalDeviceError extends Error {}

export const REJECTED_KEY_HELP =
  'the device key was rejected (401): it is unknown or was rotated; ask the operator for the new key (POST /v1/admin/devices/{device_id}/rotate-key) and start again with --key';

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((done) => {
    if (signal?.aborted) return done();
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      done();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      done();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export const retryable = (status: number) => status === 429 || status >= 500;
export const backoffMs = (attempt: number, max = MAX_BACKOFF_MS) => Math.min(max, 250 * 2 ** Math.min(attempt, 20));
export const describeAnswer = (answer: Answer) =>
  `${answer.status} ${String(answer.body.code ?? '')} ${String(answer.body.detail ?? '')}`.trim();

export function errorText(error: unknown): string {
  if (error instanceof Error)
    return error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message;
  return String(error);
}

/** One HTTP call to the device surface: the status, the JSON answer and Retry-After. */
export function deviceCaller(baseUrl: string, key: string, doFetch: typeof fetch = fetch) {
  const base = baseUrl.replace(/\/+$/, '');
  return async function call(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Answer> {
    const response = await doFetch(base + path, {
      method,
      headers: { 'x-phone-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      // No call may hang for ever (a half-open connection after an outage): 45 s is past the longest poll (30 s).
      signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(45_000)]) : AbortSignal.timeout(45_000),
    });
    const text = await response.text();
    const retryAfter = Number(response.headers.get('retry-after'));
    return {
      status: response.status,
      body: parseBody(text),
      retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : null,
    };
  };
}

/**
 * At most `rate` SMS segments in any 60 s window (a text longer than the whole budget goes alone
 * in an empty window, as the server hands it out), with a random pause after each send.
 */
export class SendPacer {
  private readonly sent: { at: number; segments: number }[] = [];
  private readonly clock: () => number;
  private readonly jitter: { min: number; max: number };
  private readonly random: () => number;
  constructor(clock = Date.now, jitter = { min: 0, max: 0 }, random = Math.random) {
    this.clock = clock;
    this.jitter = jitter;
    this.random = random;
  }

  /** The pause to keep after the previous send, drawn now: [min, max] ms. */
  private pause(): number {
    const { min, max } = this.jitter;
    return max <= 0 ? 0 : min + this.random() * Math.max(0, max - min);
  }

  async take(rate: number, segments = 1, signal?: AbortSignal): Promise<void> {
    const limit = Math.max(1, Math.floor(rate));
    const cost = Math.min(limit, Math.max(1, Math.floor(segments)));
    const last = this.sent.at(-1);
    if (last) {
      const wait = last.at + this.pause() - this.clock();
      if (wait > 0) await sleep(wait, signal);
    }
    for (;;) {
      const now = this.clock();
      while (this.sent.length > 0 && now - this.sent[0].at >= 60_000) this.sent.shift();
      let used = this.sent.reduce((sum, entry) => sum + entry.segments, 0);
      if (used + cost <= limit) {
        this.sent.push({ at: now, segments: cost });
        return;
      }
      if (signal?.aborted) return;
      // Wait until enough of the oldest sends leave the window.
      let until = now;
      for (const entry of this.sent) {
        used -= entry.segments;
        until = entry.at + 60_000;
        if (used + cost <= limit) break;
      }
      await sleep(Math.max(1, until - now), signal);
    }
  }
}

export async function startDevice(options: ProtocolOptions, driver: DeviceDriver): Promise<RunningDevice> {
  const settings = { ...DEFAULTS, ...stripUndefined(options) };
  const log = options.logger ?? ((line: string) => process.stdout.write(`${line}\n`));
  const now = options.now ?? (() => new Date());
  const call = deviceCaller(options.baseUrl, options.key, options.fetch);
  const stats = Object.fromEntries(STAT_NAMES.map((name) => [name, 0])) as DeviceStats;
  const halt = new AbortController();
  const inFlight = new Set<Promise<void>>();
  const pacer = new SendPacer(Date.now, settings.sendJitterMs, options.random);
  let fatal: FatalDeviceError | null = null;
  let tag = 'device';
  const tagged = (line: string) => log(`[${tag}] ${line}`);

  const stopFatally = (error: FatalDeviceError) => {
    fatal ??= error;
    halt.abort();
  };

  /** Sends one request until it gets a non-retryable answer; network errors, 429 and 5xx are retried with the same body. */
  async function callWithRetry(what: string, method: string, path: string, body: unknown): Promise<Answer> {
    for (let attempt = 0; ; attempt += 1) {
      let wait: number;
      try {
        const answer = await call(method, path, body);
        if (answer.status === 401) throw new FatalDeviceError(`${what}: ${describeAnswer(answer)}`);
        if (!retryable(answer.status) || attempt + 1 >= REPORT_ATTEMPTS) return answer;
        wait = answer.retryAfterMs ?? backoffMs(attempt);
        tagged(`${what}: ${describeAnswer(answer)}; retrying in ${wait} ms`);
      } catch (error) {
        if (error instanceof FatalDeviceError || attempt + 1 >= REPORT_ATTEMPTS) throw error;
        wait = backoffMs(attempt);
        tagged(`${what}: network error (${errorText(error)}); retrying in ${wait} ms`);
      }
      stats.retries += 1;
      await sleep(wait);
    }
  }

  const directSink: CallSink = {
    async submit(outgoing) {
      const what =
        outgoing.kind === 'event'
          ? `${outgoing.messageId} ${outgoing.event}`
          : `inbound from ${String(outgoing.body.from)}`;
      const answer = await callWithRetry(what, 'POST', outgoing.path, outgoing.body);
      return { accepted: answer.status >= 200 && answer.status < 300, answer };
    },
  };
  const sink = options.sink ?? directSink;

  async function heartbeat(): Promise<DeviceConfig> {
    let telemetry: HeartbeatBody = {};
    try {
      telemetry = await driver.telemetry();
    } catch (error) {
      tagged(`telemetry unavailable: ${errorText(error)}`);
    }
    const answer = await call('POST', '/v1/device/heartbeat', { ...telemetry, capabilities: driver.capabilities });
    if (answer.status !== 200) {
      const message = `heartbeat: ${describeAnswer(answer)}`;
      throw answer.status === 401 ? new FatalDeviceError(message) : new Error(message);
    }
    stats.heartbeats += 1;
    return answer.body as unknown as DeviceConfig;
  }

  async function firstHeartbeat(): Promise<DeviceConfig> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await heartbeat();
      } catch (error) {
        if (!settings.retryFirstHeartbeat || error instanceof FatalDeviceError) throw error;
        const wait = backoffMs(attempt, 30_000);
        log(`[device] ${errorText(error)}; calling again in ${wait} ms`);
        await sleep(wait);
      }
    }
  }

  async function report(
    message: ClaimedMessage,
    event: DeviceEvent,
    error?: { code: string; message: string },
  ): Promise<boolean> {
    const body = {
      event_id: randomUUID(),
      event,
      occurred_at: now().toISOString(),
      ...(error ? { error_code: error.code.slice(0, 64), error_message: error.message.slice(0, 500) || 'failed' } : {}),
    };
    const outcome = await sink.submit({
      kind: 'event',
      path: `/v1/device/messages/${encodeURIComponent(message.id)}/events`,
      body,
      messageId: message.id,
      event,
    });
    if (outcome.accepted) {
      if (event !== 'sending') stats[event] += 1;
      // A durable sink calls onReport itself once the service accepted it.
      if (!options.sink) options.onReport?.(message.id, event);
      return true;
    }
    stats.errors += 1;
    tagged(`${message.id} ${event} rejected: ${outcome.answer ? describeAnswer(outcome.answer) : 'not queued'}`);
    return false;
  }

  async function uploadInbound(text: InboundText): Promise<{ status: number; message: Record<string, unknown> }> {
    const body = {
      device_message_id: text.deviceMessageId ?? randomUUID(),
      from: text.from,
      body: text.body,
      ...(text.mediaUrls ? { media_urls: text.mediaUrls } : {}),
      received_at: text.receivedAt ?? now().toISOString(),
    };
    const outcome = await sink.submit({ kind: 'inbound', path: '/v1/device/messages/inbound', body });
    if (!outcome.accepted) {
      stats.errors += 1;
      throw new Error(`inbound from ${text.from}: ${outcome.answer ? describeAnswer(outcome.answer) : 'not queued'}`);
    }
    stats.inbound += 1;
    const answer = outcome.answer;
    tagged(
      answer
        ? `received from ${text.from}: ${String(answer.body.id)} (${answer.status})`
        : `received from ${text.from}: queued ${body.device_message_id}`,
    );
    return { status: answer?.status ?? 202, message: answer?.body ?? {} };
  }

  /** Counts and logs a failure; a fatal one stops the device, and so does any with `halt`. */
  const failed =
    (prefix = '', halts = false) =>
    (error: unknown) => {
      stats.errors += 1;
      tagged(prefix + errorText(error));
      if (error instanceof FatalDeviceError) stopFatally(error);
      else if (halts) halt.abort();
    };

  function track(work: Promise<void>): void {
    const settled = work.catch(failed());
    inFlight.add(settled);
    void settled.finally(() => inFlight.delete(settled));
  }

  async function handle(message: ClaimedMessage): Promise<void> {
    if (settings.paceSends) await pacer.take(latest.send_rate_per_minute, message.segments ?? 1);
    else if (settings.sendJitterMs.max > 0) await pacer.take(Number.MAX_SAFE_INTEGER);
    await driver.deliver(message, context);
  }

  async function pollLoop(): Promise<void> {
    let failures = 0;
    while (!halt.signal.aborted) {
      const started = Date.now();
      let pause = 0;
      try {
        const answer = await call(
          'GET',
          `/v1/device/messages/outbound?limit=${settings.claimLimit}&wait=${settings.pollWaitSeconds}`,
          undefined,
          halt.signal,
        );
        stats.polls += 1;
        if (answer.status === 200) {
          failures = 0;
          const messages = (answer.body.messages ?? []) as ClaimedMessage[];
          for (const message of messages) {
            stats.claimed += 1;
            options.onClaim?.(message);
            tagged(
              `claimed ${message.id} to ${message.to}${message.lease_expires_at ? ` (lease until ${message.lease_expires_at})` : ''}`,
            );
            track(handle(message));
          }
          if (messages.length === 0 && Date.now() - started < EMPTY_POLL_PACE_MS) pause = EMPTY_POLL_PACE_MS;
        } else if (answer.status === 401) {
          throw new FatalDeviceError(`claim: ${describeAnswer(answer)}`);
        } else {
          stats.errors += 1;
          failures += 1;
          pause = answer.retryAfterMs ?? backoffMs(failures);
          tagged(`claim: ${describeAnswer(answer)}; polling again in ${pause} ms`);
        }
      } catch (error) {
        if (halt.signal.aborted) break;
        if (error instanceof FatalDeviceError) throw error;
        stats.errors += 1;
        failures += 1;
        pause = backoffMs(failures);
        tagged(`claim: network error (${errorText(error)}); polling again in ${pause} ms`);
      }
      if (pause > 0) await sleep(pause, halt.signal);
    }
  }

  const config = await firstHeartbeat();
  let latest = config;
  tag = config.phone_number ?? config.device_id;
  tagged(
    `online as ${config.device_id}, cell ${config.cell_id ?? '(none)'}, ${config.send_rate_per_minute} segments/min`,
  );
  const holdText = (answer: DeviceConfig) => (answer.hold ? `${answer.hold.code}: ${answer.hold.reason}` : null);
  if (config.hold) tagged(`the service hands this phone nothing (${holdText(config)})`);

  const context: DriverContext = {
    get config() {
      return latest;
    },
    stats,
    signal: halt.signal,
    log: tagged,
    report,
    uploadInbound,
  };

  const heartbeats = setInterval(() => {
    heartbeat().then((answer) => {
      // Say when the operator pauses or releases the phone, or the service quarantines it.
      if (holdText(answer) !== holdText(latest))
        tagged(answer.hold ? `the service hands this phone nothing (${holdText(answer)})` : 'claiming again');
      latest = answer;
    }, failed());
  }, settings.heartbeatIntervalMs);
  heartbeats.unref();

  const loops = Array.from({ length: Math.max(1, settings.pollers) }, () =>
    pollLoop().catch(failed('stopping: ', true)),
  );
  const background = driver.run ? driver.run(context).catch(failed('stopping: ', true)) : Promise.resolve();
  const stopped = Promise.all([...loops, background]).then(async () => {
    clearInterval(heartbeats);
    while (inFlight.size > 0) await Promise.all(inFlight);
    tagged(`stopped: ${formatStats(stats)}`);
  });

  return {
    config,
    stats,
    stopped,
    fatal: () => fatal,
    uploadInbound,
    async stop() {
      halt.abort();
      await stopped;
    },
  };
}

/** The JSON answer, or (from a proxy, say) its text as the detail. */
export function parseBody(text: string): Record<string, unknown> {
  if (!text) return {};
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { detail: text.slice(0, 200) };
  }
}

export function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export function formatStats(stats: DeviceStats): string {
  return Object.entries(stats)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}
