// A simulated phone: speaks the device protocol (docs/device-protocol.md) exactly as the Android
// app does — heartbeat, long-poll claim loop, sent/delivered/failed reports with retried event ids,
// inbound texts. Used by `cellgate device simulate`, the demo, the benchmarks and the tests.
// Phones that share a SimulatedNetwork (one process driving several keys) text each other: a
// message to a number another of them carries arrives there as an inbound upload, as in a rack.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { UsageError } from './admin.ts';

export interface ClaimedMessage {
  id: string;
  to: string;
  body: string;
  media_urls?: string[];
  lease_expires_at?: string;
}

export interface DeviceConfig {
  device_id: string;
  cell_id: string | null;
  phone_number: string;
  send_rate_per_minute: number;
  server_time: string;
}

export interface DeviceStats {
  heartbeats: number;
  polls: number;
  claimed: number;
  sent: number;
  delivered: number;
  failed: number;
  inbound: number;
  /** Report attempts repeated after a network error, 429 or 5xx (same event_id). */
  retries: number;
  errors: number;
}

export interface SimulatorOptions {
  baseUrl: string;
  key: string;
  /** Probability (0..1) that a message's delivery report is `failed` instead of `delivered`. */
  failRate?: number;
  /** Time between the `sent` report and the `delivered`/`failed` report. */
  deliveryDelayMs?: number;
  /** Long-poll `wait` in seconds (0..30). */
  pollWaitSeconds?: number;
  /** Claim `limit` per poll. */
  claimLimit?: number;
  /** Concurrent claim loops on this key (a phone app runs one; tests use more to race the server). */
  pollers?: number;
  /** Report `sending` before `sent`. */
  reportSending?: boolean;
  heartbeatIntervalMs?: number;
  fetch?: typeof fetch;
  logger?: (line: string) => void;
  random?: () => number;
  /** Source of occurred_at / received_at (defaults to the wall clock). */
  now?: () => Date;
  /** Called once per message handed to this device by a claim. */
  onClaim?: (message: ClaimedMessage) => void;
  /** Called after the service accepted a report (2xx). */
  onReport?: (messageId: string, event: DeviceEvent) => void;
  /** Phones on one network receive each other's texts (uploaded as inbound before the delivery report). */
  network?: SimulatedNetwork;
}

/** The simulated phones of one process, by phone number: a text to one of them is received there. */
export class SimulatedNetwork {
  private readonly phones = new Map<string, SimulatedDevice>();

  join(device: SimulatedDevice): void {
    this.phones.set(device.config.phone_number, device);
  }

  leave(device: SimulatedDevice): void {
    if (this.phones.get(device.config.phone_number) === device) this.phones.delete(device.config.phone_number);
  }

  /** The phone carrying `number`, if it is on this network. */
  carrier(number: string): SimulatedDevice | undefined {
    return this.phones.get(number);
  }
}

export type DeviceEvent = 'sending' | 'sent' | 'delivered' | 'failed';

export interface SimulatedDevice {
  /** The heartbeat answer: which device, cell and number this key is. */
  readonly config: DeviceConfig;
  readonly stats: DeviceStats;
  /** Resolves when the device stops (stop(), or a fatal answer such as a rotated key). */
  readonly stopped: Promise<void>;
  sendInbound(from: string, body: string, options?: { mediaUrls?: string[]; deviceMessageId?: string }): Promise<{ status: number; message: Record<string, unknown> }>;
  /** Stops polling, finishes the messages in hand (their reports), and resolves when idle. */
  stop(): Promise<void>;
}

const DEFAULTS = { failRate: 0, deliveryDelayMs: 500, pollWaitSeconds: 25, claimLimit: 10, pollers: 1, heartbeatIntervalMs: 30_000 };
const REPORT_ATTEMPTS = 8;
const MAX_BACKOFF_MS = 5_000;
/** An empty poll answered faster than this means the server is not holding the poll (rate cap): pace. */
const EMPTY_POLL_PACE_MS = 1_000;
const APP_VERSION = 'cellgate-simulator/0.1.0';

class FatalDeviceError extends Error {}

interface Answer {
  status: number;
  body: Record<string, unknown>;
  retryAfterMs: number | null;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((done) => {
    if (signal?.aborted) return done();
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', () => { clearTimeout(timer); done(); }, { once: true });
  });

const retryable = (status: number) => status === 429 || status >= 500;
const backoffMs = (attempt: number) => Math.min(MAX_BACKOFF_MS, 250 * 2 ** attempt);
const describe = (answer: Answer) => `${answer.status} ${String(answer.body.code ?? '')} ${String(answer.body.detail ?? '')}`.trim();

export async function startSimulatedDevice(options: SimulatorOptions): Promise<SimulatedDevice> {
  const settings = { ...DEFAULTS, ...stripUndefined(options) };
  if (!(settings.failRate >= 0 && settings.failRate <= 1)) throw new RangeError('failRate must be within 0..1');
  const doFetch = options.fetch ?? fetch;
  const log = options.logger ?? ((line: string) => process.stdout.write(`${line}\n`));
  const random = options.random ?? Math.random;
  const now = options.now ?? (() => new Date());
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const stats: DeviceStats = { heartbeats: 0, polls: 0, claimed: 0, sent: 0, delivered: 0, failed: 0, inbound: 0, retries: 0, errors: 0 };
  const halt = new AbortController();
  const inFlight = new Set<Promise<void>>();
  let tag = 'device';

  async function call(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Answer> {
    const response = await doFetch(baseUrl + path, {
      method,
      headers: { 'x-phone-key': options.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
    const text = await response.text();
    const retryAfter = Number(response.headers.get('retry-after'));
    return {
      status: response.status,
      body: parseBody(text),
      retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : null,
    };
  }

  /** Sends one request until it gets a non-retryable answer; network errors, 429 and 5xx are retried with the same body. */
  async function callWithRetry(what: string, method: string, path: string, body: unknown): Promise<Answer> {
    for (let attempt = 0; ; attempt += 1) {
      let wait: number;
      try {
        const answer = await call(method, path, body);
        if (answer.status === 401) throw new FatalDeviceError(`${what}: ${describe(answer)}`);
        if (!retryable(answer.status) || attempt + 1 >= REPORT_ATTEMPTS) return answer;
        wait = answer.retryAfterMs ?? backoffMs(attempt);
        log(`[${tag}] ${what}: ${describe(answer)}; retrying in ${wait} ms`);
      } catch (error) {
        if (error instanceof FatalDeviceError || attempt + 1 >= REPORT_ATTEMPTS) throw error;
        wait = backoffMs(attempt);
        log(`[${tag}] ${what}: network error (${errorText(error)}); retrying in ${wait} ms`);
      }
      stats.retries += 1;
      await sleep(wait);
    }
  }

  async function heartbeat(): Promise<DeviceConfig> {
    const answer = await call('POST', '/v1/device/heartbeat', { battery_pct: 100, charging: true, signal_dbm: -70, app_version: APP_VERSION });
    if (answer.status !== 200) {
      const message = `heartbeat: ${describe(answer)}`;
      throw answer.status === 401 ? new FatalDeviceError(message) : new Error(message);
    }
    stats.heartbeats += 1;
    return answer.body as unknown as DeviceConfig;
  }

  async function report(message: ClaimedMessage, event: DeviceEvent, error?: { code: string; message: string }): Promise<boolean> {
    const payload = {
      event_id: randomUUID(),
      event,
      occurred_at: now().toISOString(),
      ...(error ? { error_code: error.code, error_message: error.message } : {}),
    };
    const answer = await callWithRetry(`${message.id} ${event}`, 'POST', `/v1/device/messages/${encodeURIComponent(message.id)}/events`, payload);
    if (answer.status >= 200 && answer.status < 300) {
      options.onReport?.(message.id, event);
      return true;
    }
    stats.errors += 1;
    log(`[${tag}] ${message.id} ${event} rejected: ${describe(answer)}`);
    return false;
  }

  async function deliver(message: ClaimedMessage): Promise<void> {
    if (settings.reportSending && !(await report(message, 'sending'))) return;
    if (!(await report(message, 'sent'))) return;
    stats.sent += 1;
    log(`[${tag}] ${message.id} sent to ${message.to}`);
    await sleep(settings.deliveryDelayMs);
    if (random() < settings.failRate) {
      const error = { code: 'delivery_failed', message: `Simulated delivery failure (fail rate ${settings.failRate}).` };
      if (!(await report(message, 'failed', error))) return;
      stats.failed += 1;
      log(`[${tag}] ${message.id} failed (${error.code})`);
    } else {
      await handOver(message);
      if (!(await report(message, 'delivered'))) return;
      stats.delivered += 1;
      log(`[${tag}] ${message.id} delivered`);
    }
  }

  /** A text to a phone on the same network arrives there (its upload failing does not fail the delivery). */
  async function handOver(message: ClaimedMessage): Promise<void> {
    const peer = options.network?.carrier(message.to);
    if (!peer || peer === self) return;
    try {
      await peer.sendInbound(config.phone_number, message.body, { mediaUrls: message.media_urls?.length ? message.media_urls : undefined, deviceMessageId: `sim-${message.id}` });
    } catch (error) {
      stats.errors += 1;
      log(`[${tag}] ${message.id}: handing over to ${message.to} failed: ${errorText(error)}`);
    }
  }

  function track(work: Promise<void>): void {
    const settled = work.catch((error: unknown) => {
      stats.errors += 1;
      log(`[${tag}] ${errorText(error)}`);
      if (error instanceof FatalDeviceError) halt.abort();
    });
    inFlight.add(settled);
    void settled.finally(() => inFlight.delete(settled));
  }

  async function pollLoop(): Promise<void> {
    let failures = 0;
    while (!halt.signal.aborted) {
      const started = Date.now();
      let pause = 0;
      try {
        const answer = await call('GET', `/v1/device/messages/outbound?limit=${settings.claimLimit}&wait=${settings.pollWaitSeconds}`, undefined, halt.signal);
        stats.polls += 1;
        if (answer.status === 200) {
          failures = 0;
          const messages = (answer.body.messages ?? []) as ClaimedMessage[];
          for (const message of messages) {
            stats.claimed += 1;
            options.onClaim?.(message);
            log(`[${tag}] claimed ${message.id} to ${message.to}${message.lease_expires_at ? ` (lease until ${message.lease_expires_at})` : ''}`);
            track(deliver(message));
          }
          if (messages.length === 0 && Date.now() - started < EMPTY_POLL_PACE_MS) pause = EMPTY_POLL_PACE_MS;
        } else if (answer.status === 401) {
          throw new FatalDeviceError(`claim: ${describe(answer)}`);
        } else {
          stats.errors += 1;
          failures += 1;
          pause = answer.retryAfterMs ?? backoffMs(failures);
          log(`[${tag}] claim: ${describe(answer)}; polling again in ${pause} ms`);
        }
      } catch (error) {
        if (halt.signal.aborted) break;
        if (error instanceof FatalDeviceError) throw error;
        stats.errors += 1;
        failures += 1;
        pause = backoffMs(failures);
        log(`[${tag}] claim: network error (${errorText(error)}); polling again in ${pause} ms`);
      }
      if (pause > 0) await sleep(pause, halt.signal);
    }
  }

  const config = await heartbeat();
  tag = config.phone_number ?? config.device_id;
  log(`[${tag}] online as ${config.device_id}, cell ${config.cell_id ?? '(none)'}, ${config.send_rate_per_minute}/min`);

  const heartbeats = setInterval(() => {
    heartbeat().catch((error: unknown) => {
      stats.errors += 1;
      log(`[${tag}] ${errorText(error)}`);
      if (error instanceof FatalDeviceError) halt.abort();
    });
  }, settings.heartbeatIntervalMs);
  heartbeats.unref();

  const loops = Array.from({ length: Math.max(1, settings.pollers) }, () =>
    pollLoop().catch((error: unknown) => {
      stats.errors += 1;
      log(`[${tag}] stopping: ${errorText(error)}`);
      halt.abort();
    }),
  );
  const stopped = Promise.all(loops).then(async () => {
    clearInterval(heartbeats);
    options.network?.leave(self);
    while (inFlight.size > 0) await Promise.all(inFlight);
    log(`[${tag}] stopped: ${formatStats(stats)}`);
  });

  const self: SimulatedDevice = {
    config,
    stats,
    stopped,
    async sendInbound(from, body, extra = {}) {
      const payload = {
        device_message_id: extra.deviceMessageId ?? randomUUID(),
        from,
        body,
        ...(extra.mediaUrls ? { media_urls: extra.mediaUrls } : {}),
        received_at: now().toISOString(),
      };
      const answer = await callWithRetry(`inbound from ${from}`, 'POST', '/v1/device/messages/inbound', payload);
      if (answer.status !== 200 && answer.status !== 201) {
        stats.errors += 1;
        throw new Error(`inbound from ${from}: ${describe(answer)}`);
      }
      stats.inbound += 1;
      log(`[${tag}] received from ${from}: ${String(answer.body.id)} (${answer.status})`);
      return { status: answer.status, message: answer.body };
    },
    async stop() {
      halt.abort();
      await stopped;
    },
  };
  options.network?.join(self);
  return self;
}

/** The JSON answer, or (from a proxy, say) its text as the detail. */
function parseBody(text: string): Record<string, unknown> {
  if (!text) return {};
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { detail: text.slice(0, 200) };
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message;
  return String(error);
}

function formatStats(stats: DeviceStats): string {
  return Object.entries(stats).map(([k, v]) => `${k}=${v}`).join(' ');
}

const USAGE = `usage: cellgate device simulate --key <cg_dev_...> [--key <cg_dev_...> ...] [--base-url http://127.0.0.1:8080]
    [--fail-rate 0..1] [--delivery-delay-ms N] [--poll-wait S] [--report-sending]
    [--inbound-from +1555... --inbound-text "..."]
  Several --key run several phones in this process; a text from one to another's number arrives there.
  --inbound-from/--inbound-text upload one received text on the first phone.`;

/** `cellgate device simulate ...`: runs until SIGINT/SIGTERM (or a fatal answer such as a rotated key). */
export async function deviceCommand(args: string[], defaultBaseUrl: string): Promise<void> {
  const [action, ...rest] = args;
  if (action !== 'simulate') throw new UsageError(USAGE);
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: {
        key: { type: 'string', multiple: true },
        'base-url': { type: 'string', default: defaultBaseUrl },
        'fail-rate': { type: 'string', default: '0' },
        'delivery-delay-ms': { type: 'string', default: String(DEFAULTS.deliveryDelayMs) },
        'poll-wait': { type: 'string', default: String(DEFAULTS.pollWaitSeconds) },
        'report-sending': { type: 'boolean', default: false },
        'inbound-from': { type: 'string' },
        'inbound-text': { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError(`${errorText(error)}\n${USAGE}`);
  }
  const v = parsed.values;
  const number = (name: string, raw: string, min: number, max: number) => {
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value) || value < min || value > max) throw new UsageError(`--${name} must be a number from ${min} to ${max}`);
    return value;
  };
  const keys = v.key ?? [];
  if (keys.length === 0 || !keys.every((key) => key.startsWith('cg_dev_'))) throw new UsageError(`--key must be a device key (cg_dev_...)\n${USAGE}`);
  if (new Set(keys).size !== keys.length) throw new UsageError('each --key may be given once');
  if ((v['inbound-from'] === undefined) !== (v['inbound-text'] === undefined)) throw new UsageError('--inbound-from and --inbound-text go together');

  const network = new SimulatedNetwork();
  const common: Omit<SimulatorOptions, 'key'> = {
    baseUrl: v['base-url'],
    failRate: number('fail-rate', v['fail-rate'], 0, 1),
    deliveryDelayMs: number('delivery-delay-ms', v['delivery-delay-ms'], 0, 3_600_000),
    pollWaitSeconds: Math.floor(number('poll-wait', v['poll-wait'], 0, 30)),
    reportSending: v['report-sending'],
    network,
  };
  const devices: SimulatedDevice[] = [];
  try {
    for (const key of keys) devices.push(await startSimulatedDevice({ ...common, key }));
  } catch (error) {
    // The service refused a key or is unreachable: one line, no stack.
    process.stderr.write(`cellgate: ${errorText(error)}\n`);
    process.exitCode = 1;
    await Promise.all(devices.map((device) => device.stop()));
    return;
  }
  const stopAll = () => Promise.all(devices.map((device) => device.stop()));
  // Whether the stop was asked for (a signal, a failed injection) rather than forced by a fatal answer.
  let stopRequested = false;
  let signals = 0;
  const onSignal = (signal: string) => {
    signals += 1;
    if (signals > 1) process.exit(130);
    stopRequested = true;
    process.stdout.write(`${signal}: finishing the messages in hand (again to quit now)\n`);
    void stopAll();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  if (v['inbound-from'] !== undefined && v['inbound-text'] !== undefined) {
    try {
      await devices[0].sendInbound(v['inbound-from'], v['inbound-text']);
    } catch (error) {
      process.stderr.write(`cellgate: ${errorText(error)}\n`);
      stopRequested = true;
      process.exitCode = 1;
      await stopAll();
    }
  }
  // One phone stopping (asked, or a fatal answer for its key) stops them all.
  await Promise.race(devices.map((device) => device.stopped));
  await stopAll();
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  // A stop nobody asked for means a fatal answer (unknown or rotated key).
  if (!stopRequested) process.exitCode = 1;
}
