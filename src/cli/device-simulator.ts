// A simulated phone: a DeviceDriver (device-driver.ts) that "sends" by waiting and reports
// delivered or failed; `cellgate device simulate`, the demo, the benchmarks and the tests use it.
// Phones on one SimulatedNetwork text each other, as in a rack.
import { AgentCliError, unreachable } from './agent-http.ts';
import { actionUsage, stopOnSignals } from './device-agent.ts';
import { HelpRequest, numberFlag, parseCommandLine, UsageError, wantsHelp } from './usage.ts';
import {
  errorText,
  sleep,
  startDevice,
  stripUndefined,
  type ClaimedMessage,
  type DeviceDriver,
  type DeviceStats,
  type PhoneCapabilities,
  type ProtocolOptions,
  type RunningDevice,
} from './device-driver.ts';

export type { ClaimedMessage, DeviceConfig, DeviceEvent, DeviceStats } from './device-driver.ts';

/** The protocol's options (no pacing, no durable sink), and how the simulated phone behaves. */
export interface SimulatorOptions extends Omit<ProtocolOptions, 'paceSends' | 'retryFirstHeartbeat' | 'sink'> {
  /** Probability (0..1) that a message's delivery report is `failed` instead of `delivered`. */
  failRate?: number;
  /** Time between the `sent` report and the `delivered`/`failed` report. */
  deliveryDelayMs?: number;
  /** Report `sending` before `sent`. */
  reportSending?: boolean;
  /** What the phone states it can do (default: everything); without delivery_reports it stops at `sent`. */
  capabilities?: Partial<PhoneCapabilities>;
  /** Phones on one network receive each other's texts (uploaded as inbound before the delivery report). */
  network?: SimulatedNetwork;
  /** Make the phone fail as a real one does (see SimFault); setFault() changes it while it runs. */
  fault?: SimFault | null;
}

/**
 * How a simulated phone fails, for tests of SIM safety (contract §11):
 * - `blocked_sim`: the carrier refuses every text; each is reported `failed` at once with
 *   `generic_failure` (Android's RESULT_ERROR_GENERIC_FAILURE, what a blocked SIM gives);
 * - `stall`: the phone reports `sending` and then nothing (the radio hangs), so leases run out.
 */
export type SimFault = 'blocked_sim' | 'stall';
export const SIM_FAULTS: readonly SimFault[] = ['blocked_sim', 'stall'];

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

export interface SimulatedDevice extends Pick<RunningDevice, 'config' | 'stats' | 'stopped' | 'stop'> {
  sendInbound(
    from: string,
    body: string,
    options?: { mediaUrls?: string[]; deviceMessageId?: string },
  ): ReturnType<RunningDevice['uploadInbound']>;
  /** Makes the phone fail from now on (null: it works again). */
  setFault(fault: SimFault | null): void;
}

const DEFAULTS = { failRate: 0, deliveryDelayMs: 500, pollWaitSeconds: 25 };
const ALL_CAPABLE: PhoneCapabilities = { delivery_reports: true, mms_send: true, mms_receive: true };
const APP_VERSION = 'cellgate-simulator/0.1.0';

/** The simulator as a driver: "sends" by reporting sent, waiting, then delivered (or failed at the fail rate). */
function simulatorDriver(
  settings: { failRate: number; deliveryDelayMs: number; reportSending: boolean; capabilities: PhoneCapabilities },
  faults: { current: SimFault | null },
  random: () => number,
  handOver: (message: ClaimedMessage, log: (line: string) => void, stats: DeviceStats) => Promise<void>,
): DeviceDriver {
  return {
    capabilities: settings.capabilities,
    async telemetry() {
      return { battery_pct: 100, charging: true, signal_dbm: -70, app_version: APP_VERSION };
    },
    async deliver(message, context) {
      const { report, stats, log } = context;
      if (faults.current === 'blocked_sim') {
        const error = {
          code: 'generic_failure',
          message: 'RESULT_ERROR_GENERIC_FAILURE: the carrier refused the text (simulated blocked SIM).',
        };
        if (await report(message, 'failed', error)) log(`${message.id} failed (${error.code}, blocked SIM)`);
        return;
      }
      if (faults.current === 'stall') {
        await report(message, 'sending');
        log(`${message.id} stuck in sending (stalled radio)`);
        return;
      }
      if (settings.reportSending && !(await report(message, 'sending'))) return;
      if (!(await report(message, 'sent'))) return;
      log(`${message.id} sent to ${message.to}`);
      // Like a Termux phone: the text is handed over, and nothing more is ever heard of it.
      if (!settings.capabilities.delivery_reports) return handOver(message, log, stats);
      await sleep(settings.deliveryDelayMs);
      if (random() < settings.failRate) {
        const error = {
          code: 'delivery_failed',
          message: `Simulated delivery failure (fail rate ${settings.failRate}).`,
        };
        if (await report(message, 'failed', error)) log(`${message.id} failed (${error.code})`);
      } else {
        await handOver(message, log, stats);
        if (await report(message, 'delivered')) log(`${message.id} delivered`);
      }
    },
  };
}

export async function startSimulatedDevice(options: SimulatorOptions): Promise<SimulatedDevice> {
  const settings = {
    ...DEFAULTS,
    reportSending: false,
    ...stripUndefined(options),
    capabilities: { ...ALL_CAPABLE, ...options.capabilities },
  };
  if (!(settings.failRate >= 0 && settings.failRate <= 1)) throw new RangeError('failRate must be within 0..1');
  const random = options.random ?? Math.random;
  const faults = { current: options.fault ?? null };
  // The phone this is, once started (a text to its own number is not handed over).
  const ref: { self?: SimulatedDevice } = {};

  /** A text to a phone on the same network arrives there (its upload failing does not fail the delivery). */
  async function handOver(message: ClaimedMessage, log: (line: string) => void, stats: DeviceStats): Promise<void> {
    const peer = options.network?.carrier(message.to);
    const self = ref.self;
    if (!peer || !self || peer === self) return;
    try {
      await peer.sendInbound(self.config.phone_number, message.body, {
        mediaUrls: message.media_urls?.length ? message.media_urls : undefined,
        deviceMessageId: `sim-${message.id}`,
      });
    } catch (error) {
      stats.errors += 1;
      log(`${message.id}: handing over to ${message.to} failed: ${errorText(error)}`);
    }
  }

  // The simulator's own options ride along; the protocol reads only its own.
  const device = await startDevice(
    { ...options, pollWaitSeconds: settings.pollWaitSeconds, random },
    simulatorDriver(settings, faults, random, handOver),
  );
  const phone: SimulatedDevice = {
    config: device.config,
    stats: device.stats,
    stopped: device.stopped.then(() => options.network?.leave(phone)),
    sendInbound(from, body, extra = {}) {
      return device.uploadInbound({ from, body, mediaUrls: extra.mediaUrls, deviceMessageId: extra.deviceMessageId });
    },
    async stop() {
      await device.stop();
      await phone.stopped;
    },
    setFault(fault) {
      faults.current = fault;
    },
  };
  ref.self = phone;
  options.network?.join(phone);
  return phone;
}

const USAGE = `usage: cellgate device simulate --key <cg_dev_...> [--key <cg_dev_...> ...] [--base-url http://127.0.0.1:8080]
    [--fail-rate 0..1] [--delivery-delay-ms N] [--poll-wait S] [--report-sending] [--fault blocked-sim|stall]
    [--inbound-from +1555... --inbound-text "..."]
  Several --key run several phones in this process; a text from one to another's number arrives there.
  --inbound-from/--inbound-text upload one received text on the first phone.
       cellgate device run --key <cg_dev_...> --base-url https://... [--sim-slot N] [--state-dir DIR]
       cellgate device doctor --key <cg_dev_...> --base-url https://...
  run/doctor drive a real Android phone through Termux:API (docs/android.md).`;

/** Whether a failure is the service not answering at all (connection refused, no such host, ...). */
function notAnswering(error: unknown): string | null {
  const cause = (error as { cause?: { code?: unknown } })?.cause;
  return error instanceof TypeError && typeof cause?.code === 'string' ? cause.code : null;
}

/**
 * `cellgate device simulate ...`: runs until SIGINT/SIGTERM (or a fatal answer such as a rotated
 * key). `defaultBaseUrl` is where the service of this environment listens (agent-http.ts).
 */
export async function deviceCommand(args: string[], defaultBaseUrl: string): Promise<void> {
  const [action, ...rest] = args;
  if (action === 'run' || action === 'doctor') {
    if (wantsHelp(rest)) throw new HelpRequest(actionUsage('cellgate device', action));
    return (await import('./device-agent.ts')).agentCommand(action, rest, defaultBaseUrl);
  }
  if (action === undefined || (action !== 'simulate' && wantsHelp([action]))) throw new HelpRequest(USAGE);
  if (action !== 'simulate')
    throw new UsageError(
      `unknown device action ${JSON.stringify(action)}: the actions are simulate, run and doctor (cellgate device --help)`,
    );
  const parsed = parseCommandLine(
    {
      command: 'cellgate device simulate',
      usage: USAGE,
      options: {
        key: { type: 'string', multiple: true },
        'base-url': { type: 'string', default: defaultBaseUrl },
        'fail-rate': { type: 'string', default: '0' },
        'delivery-delay-ms': { type: 'string', default: String(DEFAULTS.deliveryDelayMs) },
        'poll-wait': { type: 'string', default: String(DEFAULTS.pollWaitSeconds) },
        'report-sending': { type: 'boolean', default: false },
        fault: { type: 'string' },
        'inbound-from': { type: 'string' },
        'inbound-text': { type: 'string' },
      },
    },
    rest,
  );
  const v = parsed.values;
  const keys = v.key ?? [];
  if (keys.length === 0 || !keys.every((key) => key.startsWith('cg_dev_')))
    throw new UsageError('--key must be a device key (cg_dev_...; repeat --key for several phones)');
  if (new Set(keys).size !== keys.length) throw new UsageError('each --key may be given once');
  if ((v['inbound-from'] === undefined) !== (v['inbound-text'] === undefined))
    throw new UsageError('--inbound-from and --inbound-text go together');

  const fault = v.fault === undefined ? null : (v.fault.replace('-', '_') as SimFault);
  if (fault !== null && !SIM_FAULTS.includes(fault))
    throw new UsageError(
      '--fault must be blocked-sim (the carrier refuses every text) or stall (no report after sending)',
    );

  const network = new SimulatedNetwork();
  const common: Omit<SimulatorOptions, 'key'> = {
    baseUrl: v['base-url'],
    failRate: numberFlag('fail-rate', v['fail-rate'], 0, 1),
    deliveryDelayMs: numberFlag('delivery-delay-ms', v['delivery-delay-ms'], 0, 3_600_000),
    pollWaitSeconds: Math.floor(numberFlag('poll-wait', v['poll-wait'], 0, 30)),
    reportSending: v['report-sending'],
    fault,
    network,
  };
  const devices: SimulatedDevice[] = [];
  try {
    for (const key of keys) devices.push(await startSimulatedDevice({ ...common, key }));
  } catch (error) {
    await Promise.all(devices.map((device) => device.stop()));
    // Nothing answers: the agent commands' line (is the service running there?).
    const code = notAnswering(error);
    if (code) throw unreachable(common.baseUrl, code);
    // The service refused a key: one line, no stack.
    throw new AgentCliError(errorText(error));
  }
  const stopAll = () => Promise.all(devices.map((device) => device.stop()));
  // Whether the stop was asked for (a signal, a failed injection) rather than forced by a fatal answer.
  let stopRequested = false;
  const release = stopOnSignals(null, () => {
    stopRequested = true;
    void stopAll();
  });
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
  release();
  // A stop nobody asked for means a fatal answer (unknown or rotated key).
  if (!stopRequested) process.exitCode = 1;
}
