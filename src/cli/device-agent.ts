// `cellgate device run` and `doctor`: a real Android phone as a cell through Termux:API
// (docs/android.md): the protocol (device-driver.ts) with the Termux driver, a durable outbox and
// the inbox position on disk (device-state.ts). Node 22 APIs, no native addons. Also the body of
// the single-file agent (device-agent-entry.ts, /v1/device/agent.mjs): import only node: builtins
// and other agent files (device-*.ts, usage.ts) here.
import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  deviceCaller,
  describeAnswer,
  errorText,
  FatalDeviceError,
  REJECTED_KEY_HELP,
  startDevice,
  type DeviceConfig,
  type DeviceEvent,
  type ProtocolOptions,
  type RunningDevice,
} from './device-driver.ts';
import { Outbox, StateFile } from './device-state.ts';
import {
  commandRunner,
  describeSim,
  findOnPath,
  parseTermuxJson,
  readSim,
  runTermux,
  simNumberNote,
  TERMUX_COMMANDS,
  termuxDriver,
  type CommandRunner,
} from './device-termux.ts';
import { numberFlag, parseCommandLine, UsageError } from './usage.ts';

export interface AgentOptions extends Pick<
  ProtocolOptions,
  | 'baseUrl'
  | 'key'
  | 'pollWaitSeconds'
  | 'heartbeatIntervalMs'
  | 'sendJitterMs'
  | 'fetch'
  | 'logger'
  | 'now'
  | 'onClaim'
> {
  /** Where state.json and outbox.jsonl live (default ~/.cellgate). */
  stateDir: string;
  /** SIM slot for termux-sms-send -s. */
  simSlot?: number;
  pollWaitSeconds?: number;
  inboxIntervalMs?: number;
  commandTimeoutMs?: number;
  /** Longest wait between retries of a queued report or upload (default 60 s). */
  maxBackoffMs?: number;
  /** Environment of the termux-* commands (PATH). */
  env?: NodeJS.ProcessEnv;
  /** Called once the service accepted a report. */
  onReport?: (messageId: string, event: DeviceEvent) => void;
}

export interface Agent {
  readonly config: DeviceConfig;
  readonly device: RunningDevice;
  readonly outbox: Outbox;
  /** Resolves when the agent stopped (stop(), or a rejected key). */
  readonly stopped: Promise<void>;
  /** The rejected key that stopped it, if one did. */
  fatal(): FatalDeviceError | null;
  stop(): Promise<void>;
}

export const AGENT_DEFAULTS = {
  pollWaitSeconds: 25,
  inboxIntervalMs: 5_000,
  commandTimeoutMs: 30_000,
  /** A phone sending at an even beat looks like a bot to the carrier: 2-8 s between sends. */
  sendJitterMs: { min: 2_000, max: 8_000 },
};

export async function startAgent(options: AgentOptions): Promise<Agent> {
  const log = options.logger ?? ((line: string) => process.stdout.write(`${line}\n`));
  const state = new StateFile(options.stateDir);
  if (state.problem) log(`[device] ${state.problem}: starting from the newest text in the inbox`);
  let fatal: FatalDeviceError | null = null;
  let device: RunningDevice | null = null;
  const outbox = new Outbox({
    dir: options.stateDir,
    call: deviceCaller(options.baseUrl, options.key, options.fetch),
    log: (line) => log(`[device] ${line}`),
    onReport: options.onReport,
    maxBackoffMs: options.maxBackoffMs,
    onFatal(error) {
      fatal ??= error;
      void device?.stop();
    },
  });
  if (outbox.size > 0) log(`[device] ${outbox.size} report(s)/upload(s) queued from the last run`);
  const run = commandRunner({
    timeoutMs: options.commandTimeoutMs ?? AGENT_DEFAULTS.commandTimeoutMs,
    env: options.env,
  });
  device = await startDevice(
    {
      ...options,
      pollWaitSeconds: options.pollWaitSeconds ?? AGENT_DEFAULTS.pollWaitSeconds,
      sendJitterMs: options.sendJitterMs ?? AGENT_DEFAULTS.sendJitterMs,
      paceSends: true,
      retryFirstHeartbeat: true,
      logger: log,
      sink: outbox,
    },
    termuxDriver({
      run,
      state,
      simSlot: options.simSlot,
      inboxIntervalMs: options.inboxIntervalMs ?? AGENT_DEFAULTS.inboxIntervalMs,
    }),
  );
  outbox.start();
  void logSim(run, log, device.config, options.simSlot);
  const running = device;
  const stopped = running.stopped.then(() => outbox.stop());
  return {
    config: running.config,
    device: running,
    outbox,
    stopped,
    fatal: () => running.fatal() ?? fatal,
    async stop() {
      await running.stop();
      await stopped;
    },
  };
}

/** The SIM, once at start. Termux:API cannot read the SIM's number, so the log names the one the service expects. */
async function logSim(
  run: CommandRunner,
  log: (line: string) => void,
  config: DeviceConfig,
  simSlot: number | undefined,
): Promise<void> {
  try {
    const sim = await readSim(run);
    log(`[device] ${describeSim(sim)}`);
    if (sim.state !== null && sim.state !== 'ready')
      log(`[device] the SIM is not ready (${sim.state}): sends will fail until it is`);
    if (sim.slots !== null && sim.slots > 1 && simSlot === undefined)
      log(`[device] ${sim.slots} SIM slots: sending from the phone's default SIM (--sim-slot N picks one)`);
  } catch (error) {
    log(`[device] SIM unknown: ${errorText(error)}`);
  }
  log(`[device] ${simNumberNote(config.phone_number)}`);
}

export type CheckLevel = 'ok' | 'warn' | 'FAIL';
export interface Check {
  level: CheckLevel;
  text: string;
}

export type DoctorOptions = Pick<AgentOptions, 'baseUrl' | 'key' | 'commandTimeoutMs' | 'env' | 'fetch' | 'now'>;

/** Everything `device run` needs, checked one by one; each check says what to do when it fails. */
export async function doctor(options: DoctorOptions): Promise<Check[]> {
  const checks: Check[] = [];
  const add = (level: CheckLevel, text: string) => checks.push({ level, text });
  const env = options.env ?? process.env;
  const timeoutMs = options.commandTimeoutMs ?? 15_000;
  const run = commandRunner({ timeoutMs, env });
  const doFetch = options.fetch ?? fetch;
  const now = options.now ?? (() => new Date());

  const node = process.versions.node;
  if (Number(node.split('.')[0]) >= 22) add('ok', `node ${node}`);
  else add('FAIL', `node ${node} is too old: install Node 22 or later (pkg install nodejs-lts)`);

  const present = new Set<string>();
  for (const command of TERMUX_COMMANDS) {
    if (findOnPath(command, env)) {
      present.add(command);
      add('ok', `${command} found`);
    } else {
      const essential = command === 'termux-sms-send' || command === 'termux-sms-list';
      add(
        essential ? 'FAIL' : 'warn',
        `${command} not found on PATH: install the Termux:API app from F-Droid and run \`pkg install termux-api\`${essential ? '' : ' (the heartbeat leaves out what it would tell)'}`,
      );
    }
  }
  if (present.has('termux-battery-status')) {
    const result = await run('termux-battery-status', []);
    if (result.timedOut)
      add(
        'FAIL',
        `termux-battery-status did not answer within ${timeoutMs / 1000} s: install the Termux:API app (from F-Droid, like Termux) and open it once`,
      );
    else {
      try {
        parseTermuxJson('termux-battery-status', result);
        add('ok', 'Termux:API answers');
      } catch (error) {
        add('warn', errorText(error));
      }
    }
  }
  if (present.has('termux-telephony-deviceinfo')) {
    try {
      const sim = await readSim(run);
      if (sim.state === 'ready') add('ok', describeSim(sim));
      else if (sim.state === null || sim.state === 'unknown')
        add('warn', `${describeSim(sim)}: grant Termux:API the Phone permission, or check the SIM`);
      else
        add('FAIL', `${describeSim(sim)}: insert a SIM that can send SMS, or unlock it (its PIN) in Android Settings`);
    } catch (error) {
      add('warn', `${errorText(error)}: the SIM could not be checked (grant Termux:API the Phone permission)`);
    }
  }
  if (present.has('termux-sms-list')) {
    try {
      await runTermux(run, 'termux-sms-list', ['-t', 'inbox', '-l', '1']);
      add('ok', 'the SMS inbox can be read');
    } catch (error) {
      add(
        'FAIL',
        `${errorText(error)}: grant Termux:API the SMS permission (Android Settings > Apps > Termux:API > Permissions > SMS)`,
      );
    }
  }

  const base = options.baseUrl.replace(/\/+$/, '');
  let reachable = false;
  try {
    const response = await doFetch(`${base}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    await response.text();
    reachable = true;
    add(response.ok ? 'ok' : 'warn', `${base} reachable (GET /health: ${response.status})`);
  } catch (error) {
    add('FAIL', `cannot reach ${base} (${errorText(error)}): check the phone's connection and --base-url`);
  }
  if (reachable) {
    try {
      // Not a heartbeat: a doctor run must not show the phone online while no agent runs.
      const answer = await deviceCaller(base, options.key, doFetch)('GET', '/v1/device/config');
      if (answer.status === 200) {
        const config = answer.body as unknown as DeviceConfig;
        add(
          'ok',
          `key valid: device ${config.device_id}, number ${config.phone_number}, ${config.send_rate_per_minute}/min`,
        );
        add('ok', simNumberNote(config.phone_number));
        if (config.cell_id === null)
          add('warn', 'the phone carries no cell yet: it will claim nothing until a customer gets its number');
        const skewSeconds = Math.round((now().getTime() - Date.parse(config.server_time)) / 1000);
        const skew = `the phone's clock is ${Math.abs(skewSeconds)} s ${skewSeconds >= 0 ? 'ahead of' : 'behind'} the service's`;
        if (Math.abs(skewSeconds) <= 5) add('ok', `clock within ${Math.abs(skewSeconds)} s of the service`);
        else
          add(
            Math.abs(skewSeconds) <= 60 ? 'warn' : 'FAIL',
            `${skew}: turn on automatic date and time (Android Settings > System > Date & time)`,
          );
      } else if (answer.status === 401) {
        add('FAIL', REJECTED_KEY_HELP);
      } else {
        add('FAIL', `the key check (GET /v1/device/config) answered ${describeAnswer(answer)}`);
      }
    } catch (error) {
      add('FAIL', `the key check failed: ${errorText(error)}`);
    }
  }
  return checks;
}

/** The exit status of a failure a restart may cure (EX_SOFTWARE): not 1, which means "get a new key". */
export const UNEXPECTED_EXIT = 70;

const synopsis = (prog: string, action: 'run' | 'doctor') =>
  action === 'run'
    ? `${prog} run --key <cg_dev_...> --base-url https://... [--sim-slot N] [--state-dir DIR]
    [--poll-wait S] [--inbox-interval S] [--command-timeout S]`
    : `${prog} doctor --key <cg_dev_...> --base-url https://... [--command-timeout S]`;

/** The usage of run and doctor, as `prog` (`cellgate device`, or `node agent.mjs` for the single file). */
export const agentUsage = (prog: string) => `usage: ${synopsis(prog, 'run')}\n       ${synopsis(prog, 'doctor')}`;

const FLAGS = {
  key: "  --key <cg_dev_...>             the phone's device key (required)",
  baseUrl: '  --base-url <url>               the service to call (default: CELLGATE_BASE_URL)',
  simSlot:
    "  --sim-slot <N>                 SIM slot to send from on a dual-SIM phone (termux-sms-send -s; default: the phone's default SIM)",
  stateDir:
    '  --state-dir <dir>              where the inbox position and the queue of unsent reports live (default ~/.cellgate)',
  pollWait: '  --poll-wait <S>                seconds each long-poll for outbound messages waits (0-30, default 25)',
  inboxInterval: '  --inbox-interval <S>           seconds between reads of the SMS inbox (default 5)',
  commandTimeout:
    '  --command-timeout <S>          seconds a termux-* command may run before it is killed (default 30)',
};

/** One action's usage with what each of its flags does (`run --help`, `doctor --help`). */
export function actionUsage(prog: string, action: 'run' | 'doctor'): string {
  if (action === 'doctor')
    return `usage: ${synopsis(prog, action)}
  check this phone is ready for run: termux-* commands, permissions, SIM, the service, the key, the clock
${[FLAGS.key, FLAGS.baseUrl, FLAGS.commandTimeout].join('\n')}`;
  return `usage: ${synopsis(prog, action)}
  run this Android phone as a cell through Termux:API until Ctrl-C (docs/android.md): heartbeat,
  send the texts it claims, upload the ones it receives
${[FLAGS.key, FLAGS.baseUrl, FLAGS.simSlot, FLAGS.stateDir, FLAGS.pollWait, FLAGS.inboxInterval, FLAGS.commandTimeout].join('\n')}`;
}

/** `cellgate device run|doctor ...` (or `node agent.mjs run|doctor ...`: `prog` is how the usage names it). */
export async function agentCommand(
  action: 'run' | 'doctor',
  args: string[],
  defaultBaseUrl: string,
  prog = 'cellgate device',
): Promise<void> {
  const usage = actionUsage(prog, action);
  const parsed = parseCommandLine(
    {
      command: `${prog} ${action}`,
      usage,
      options: {
        key: { type: 'string' },
        'base-url': { type: 'string', default: defaultBaseUrl },
        ...(action === 'run'
          ? {
              'sim-slot': { type: 'string' },
              'state-dir': { type: 'string', default: join(homedir(), '.cellgate') },
              'poll-wait': { type: 'string', default: String(AGENT_DEFAULTS.pollWaitSeconds) },
              'inbox-interval': { type: 'string', default: String(AGENT_DEFAULTS.inboxIntervalMs / 1000) },
            }
          : {}),
        'command-timeout': { type: 'string', default: String(AGENT_DEFAULTS.commandTimeoutMs / 1000) },
      },
    },
    args,
  );
  const v = parsed.values as Record<string, string | undefined>;
  const number = (name: string, min: number, max: number) => numberFlag(name, v[name], min, max);
  const key = v.key ?? '';
  if (!key.startsWith('cg_dev_'))
    throw new UsageError(`--key must be a device key (cg_dev_...; ${prog} ${action} --help)`);
  const baseUrl = v['base-url'] ?? defaultBaseUrl;
  if (!/^https?:\/\/[^/]/.test(baseUrl))
    throw new UsageError(
      "--base-url must be the service's http(s) URL, e.g. https://cellgate.example.com (or set CELLGATE_BASE_URL)",
    );
  const commandTimeoutMs = number('command-timeout', 1, 600) * 1000;

  if (action === 'doctor') {
    const checks = await doctor({ baseUrl, key, commandTimeoutMs });
    for (const check of checks) process.stdout.write(`${check.level.padEnd(4)}  ${check.text}\n`);
    const failed = checks.filter((check) => check.level === 'FAIL').length;
    process.stdout.write(
      failed ? `${failed} problem(s): fix them, then run doctor again\n` : `ready: start the agent with ${prog} run\n`,
    );
    if (failed) process.exitCode = 1;
    return;
  }

  let agent: Agent;
  try {
    agent = await startAgent({
      baseUrl,
      key,
      stateDir: v['state-dir'] ?? join(homedir(), '.cellgate'),
      simSlot: v['sim-slot'] === undefined ? undefined : Math.floor(number('sim-slot', 0, 7)),
      pollWaitSeconds: Math.floor(number('poll-wait', 0, 30)),
      inboxIntervalMs: number('inbox-interval', 1, 3600) * 1000,
      commandTimeoutMs,
    });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    process.stderr.write(`cellgate: ${error instanceof FatalDeviceError ? REJECTED_KEY_HELP : errorText(error)}\n`);
    // 1 only for what a restart cannot fix (a boot script stops on it); anything else may pass.
    process.exitCode = error instanceof FatalDeviceError ? 1 : UNEXPECTED_EXIT;
    return;
  }
  const release = stopOnSignals('queued reports stay on disk', () => void agent.stop());
  await agent.stopped;
  release();
  if (agent.fatal()) {
    process.stderr.write(`cellgate: ${REJECTED_KEY_HELP} (${agent.fatal()?.message})\n`);
    process.exitCode = 1;
  }
}

/**
 * The device commands' SIGINT/SIGTERM: the first runs `stop` (the messages in hand finish), a second
 * quits at once (130). Returns the function that removes the handlers.
 */
export function stopOnSignals(note: string | null, stop: () => void): () => void {
  let signals = 0;
  const onSignal = (signal: string) => {
    signals += 1;
    if (signals > 1) process.exit(130);
    process.stdout.write(`${signal}: finishing the messages in hand (again to quit now)${note ? `; ${note}` : ''}\n`);
    stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
