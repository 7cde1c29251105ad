// The Termux driver: a real Android phone through the Termux:API commands (termux-sms-send,
// termux-sms-list, termux-battery-status, termux-telephony-*). Each command runs with a timeout;
// one that hangs is killed. Parsers accept exactly what Termux:API prints (pretty JSON from
// android.util.JsonWriter; errors as {"error": "..."}). Node 22 APIs only, no native addons.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import {
  errorText,
  sleep,
  type ClaimedMessage,
  type DeviceDriver,
  type DriverContext,
  type HeartbeatBody,
  type PhoneCapabilities,
} from './device-driver.ts';
import type { StateFile } from './device-state.ts';

export const AGENT_VERSION = 'cellgate-termux/0.1.0';
export const TERMUX_COMMANDS = [
  'termux-sms-send',
  'termux-sms-list',
  'termux-battery-status',
  'termux-telephony-deviceinfo',
  'termux-telephony-cellinfo',
] as const;

export interface CommandResult {
  ok: boolean;
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** The command is not on PATH. */
  missing: boolean;
}

export interface CommandRunner {
  (command: string, args: string[]): Promise<CommandResult>;
}

/** Runs a command with a timeout (SIGKILL when it runs over); never rejects. */
export function commandRunner(options: { timeoutMs: number; env?: NodeJS.ProcessEnv }): CommandRunner {
  return (command, args) =>
    new Promise((resolve) => {
      let stdout = '';
      let stderr = '';
      let timedOut = false;
      let settled = false;
      const finish = (result: Omit<CommandResult, 'stdout' | 'stderr' | 'timedOut'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...result, stdout, stderr, timedOut });
      };
      const child = spawn(command, args, { env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, options.timeoutMs);
      child.stdout.on('data', (chunk: Buffer) => {
        if (stdout.length < 1_000_000) stdout += chunk.toString();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        if (stderr.length < 100_000) stderr += chunk.toString();
      });
      child.on('error', (error: NodeJS.ErrnoException) => {
        stderr += error.message;
        finish({ ok: false, code: null, missing: error.code === 'ENOENT' });
      });
      child.on('close', (code) => finish({ ok: code === 0 && !timedOut, code, missing: false }));
    });
}

/** Where `command` is on PATH, if it is there and executable. */
export function findOnPath(command: string, env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** JSON a Termux:API command printed; throws on malformed output or an {"error": ...} answer. */
export function parseTermuxJson(command: string, result: CommandResult): unknown {
  if (result.missing) throw new Error(`${command} is not installed (pkg install termux-api)`);
  if (result.timedOut) throw new Error(`${command} timed out (is the Termux:API app installed and allowed to run?)`);
  if (!result.ok)
    throw new Error(`${command} exited with ${result.code}: ${(result.stderr || result.stdout).trim().slice(0, 300)}`);
  let value: unknown;
  try {
    value = JSON.parse(result.stdout);
  } catch {
    throw new Error(`${command} printed malformed JSON: ${JSON.stringify(result.stdout.slice(0, 120))}`);
  }
  const error = (value as { error?: unknown } | null)?.error;
  if (!Array.isArray(value) && typeof error === 'string') throw new Error(`${command}: ${error}`);
  return value;
}

/** Runs a Termux:API command and parses what it printed (parseTermuxJson). */
export const runTermux = async (run: CommandRunner, command: string, args: string[] = []): Promise<unknown> =>
  parseTermuxJson(command, await run(command, args));

/** termux-battery-status: {"percentage": 87, "plugged": "PLUGGED_AC", "status": "CHARGING", ...}. */
export function batteryTelemetry(value: unknown): HeartbeatBody {
  const battery = (value ?? {}) as { percentage?: unknown; plugged?: unknown; status?: unknown };
  const out: HeartbeatBody = {};
  if (typeof battery.percentage === 'number' && Number.isFinite(battery.percentage))
    out.battery_pct = Math.max(0, Math.min(100, Math.round(battery.percentage)));
  if (typeof battery.plugged === 'string') out.charging = battery.plugged !== 'UNPLUGGED';
  else if (typeof battery.status === 'string')
    out.charging = battery.status === 'CHARGING' || battery.status === 'FULL';
  return out;
}

/** termux-telephony-cellinfo: [{"type": "lte", "registered": true, "dbm": -95, ...}, ...]; the registered cell's signal. */
export function signalDbm(value: unknown): number | undefined {
  if (!Array.isArray(value)) return undefined;
  const cells = value as { registered?: unknown; dbm?: unknown }[];
  const cell =
    cells.find((c) => c.registered === true && typeof c.dbm === 'number') ??
    cells.find((c) => typeof c.dbm === 'number');
  const dbm = cell?.dbm;
  if (typeof dbm !== 'number' || !Number.isFinite(dbm)) return undefined;
  return Math.max(-150, Math.min(0, Math.round(dbm)));
}

/** What termux-telephony-deviceinfo tells about the SIM. */
export interface SimInfo {
  /** sim_state: "ready", "absent", "pin_required", "puk_required", "network_locked", "unknown". */
  state: string | null;
  operator: string | null;
  networkType: string | null;
  roaming: boolean | null;
  /** SIM slots of the phone (phone_count). */
  slots: number | null;
}

/**
 * termux-telephony-deviceinfo: {"data_enabled": "true", ..., "phone_count": 2, "network_type": "lte",
 * "network_roaming": false, "sim_operator": "310260", "sim_operator_name": "T-Mobile", "sim_state": "ready", ...}
 * (TelephonyAPI.onReceiveTelephonyDeviceInfo in termux-api). It never prints the SIM's own number:
 * Termux:API does not call TelephonyManager.getLine1Number, so the agent cannot read it.
 */
export function simInfo(value: unknown): SimInfo {
  const info = (value && typeof value === 'object' && !Array.isArray(value) ? value : {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
  return {
    state: text(info.sim_state),
    operator: text(info.sim_operator_name) ?? text(info.network_operator_name) ?? text(info.sim_operator),
    networkType: text(info.network_type),
    roaming: typeof info.network_roaming === 'boolean' ? info.network_roaming : null,
    slots: typeof info.phone_count === 'number' && Number.isSafeInteger(info.phone_count) ? info.phone_count : null,
  };
}

/** Runs termux-telephony-deviceinfo; throws like parseTermuxJson when it cannot tell. */
export async function readSim(run: CommandRunner): Promise<SimInfo> {
  return simInfo(await runTermux(run, 'termux-telephony-deviceinfo'));
}

/** One line about the SIM for the log and doctor: "SIM ready, T-Mobile, lte, 2 SIM slots". */
export function describeSim(sim: SimInfo): string {
  const parts = [`SIM ${sim.state ?? 'state unknown'}`];
  if (sim.operator) parts.push(sim.operator);
  if (sim.networkType) parts.push(sim.networkType);
  if (sim.roaming) parts.push('roaming');
  if (sim.slots !== null && sim.slots > 1) parts.push(`${sim.slots} SIM slots`);
  return parts.join(', ');
}

/** Said wherever the SIM's number would be shown: Termux:API cannot read it, the service knows it. */
export const simNumberNote = (phoneNumber: string) =>
  `the service routes ${phoneNumber} to this phone; Termux:API cannot read the SIM's own number, so make sure this SIM is ${phoneNumber} (text another phone from it once)`;

export interface InboxText {
  id: number;
  from: string;
  body: string;
  receivedAt: string;
}

/**
 * termux-sms-list: the newest texts, oldest first, each
 * {"threadid": 3, "type": "inbox", "read": false, "address": "+1...", "number": "+1...", "received": "2026-11-21 05:56:12", "body": "...", "_id": 4711}.
 * `received` is the phone's local time; entries without a usable _id or sender are skipped.
 */
export function inboxTexts(value: unknown): InboxText[] {
  if (!Array.isArray(value))
    throw new Error(`termux-sms-list printed ${value === null ? 'null' : typeof value}, not a list`);
  const texts: InboxText[] = [];
  for (const item of value as Record<string, unknown>[]) {
    if (!item || typeof item !== 'object') continue;
    const id = item._id;
    const from = typeof item.address === 'string' ? item.address : item.number;
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || typeof from !== 'string' || !from) continue;
    if (item.type !== undefined && item.type !== 'inbox') continue;
    texts.push({
      id,
      from,
      body: typeof item.body === 'string' ? item.body : '',
      receivedAt: localTimeToIso(item.received),
    });
  }
  return texts.sort((a, b) => a.id - b.id);
}

/** "yyyy-MM-dd HH:mm:ss" in the phone's time zone, as ISO 8601 (now when unreadable). */
function localTimeToIso(value: unknown): string {
  const match = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/.exec(value) : null;
  if (!match) return new Date().toISOString();
  const [, y, mo, d, h, mi, s] = match.map(Number);
  const date = new Date(y, mo - 1, d, h, mi, s);
  return Number.isNaN(date.getTime()) ? new Date().toISOString() : date.toISOString();
}

export interface TermuxDriverOptions {
  run: CommandRunner;
  state: StateFile;
  /** SIM slot for termux-sms-send -s (dual-SIM phones); unset uses the phone's default. */
  simSlot?: number;
  /** How often the inbox is read. */
  inboxIntervalMs: number;
  /** How many of the newest inbox texts each read looks at (termux-sms-list -l). */
  inboxLimit?: number;
}

/**
 * termux-sms-send returns once Android took the text and offers no delivery callback, and
 * Termux:API has no MMS at all: the service ends waits at `sent` and refuses media up front.
 */
export const TERMUX_CAPABILITIES: PhoneCapabilities = Object.freeze({
  delivery_reports: false,
  mms_send: false,
  mms_receive: false,
});

/** The stable id of an inbox text, as the device_message_id of its upload. */
export const inboxMessageId = (id: number) => `content://sms/inbox/${id}`;

export function termuxDriver(options: TermuxDriverOptions): DeviceDriver {
  const { run, state } = options;

  /** One look at the inbox: new texts (by _id) are queued for upload, then remembered. */
  async function pickUpInbound(context: DriverContext): Promise<void> {
    const texts = inboxTexts(
      await runTermux(run, 'termux-sms-list', ['-t', 'inbox', '-l', String(options.inboxLimit ?? 50)]),
    );
    if (state.lastInboxId === null) {
      // First run, or a corrupted state file: start from the newest text (older ones were there before the agent).
      const newest = texts.reduce((max, text) => Math.max(max, text.id), 0);
      state.setLastInboxId(newest);
      context.log(
        `inbox: starting after text ${newest}${state.problem ? ` (${state.problem}; texts up to now are not uploaded again)` : ''}`,
      );
      return;
    }
    for (const text of texts) {
      if (text.id <= state.lastInboxId) continue;
      await context.uploadInbound({
        deviceMessageId: inboxMessageId(text.id),
        from: text.from,
        body: text.body,
        receivedAt: text.receivedAt,
      });
      state.setLastInboxId(text.id);
    }
  }

  return {
    capabilities: TERMUX_CAPABILITIES,

    async telemetry() {
      // What is unknown (the battery, the signal) is left out of the heartbeat.
      const [battery, dbm] = await Promise.all([
        runTermux(run, 'termux-battery-status').then(batteryTelemetry, () => ({})),
        runTermux(run, 'termux-telephony-cellinfo').then(signalDbm, () => undefined),
      ]);
      return { app_version: AGENT_VERSION, ...battery, ...(dbm === undefined ? {} : { signal_dbm: dbm }) };
    },

    async deliver(message: ClaimedMessage, context: DriverContext) {
      if (message.media_urls && message.media_urls.length > 0) {
        const error = {
          code: 'mms_unsupported',
          message: 'This phone sends through termux-sms-send, which cannot send MMS.',
        };
        // Counted failed even when the service refused the report: the text was not sent.
        if (!(await context.report(message, 'failed', error))) context.stats.failed += 1;
        return;
      }
      const args = ['-n', message.to];
      if (options.simSlot !== undefined) args.push('-s', String(options.simSlot));
      // A body that starts with "-" would be read as an option by the script's getopts.
      if (message.body.startsWith('-')) args.push('--');
      args.push(message.body);
      const result = await run('termux-sms-send', args);
      const failure = sendFailure(result);
      if (failure) {
        context.log(`${message.id} failed: ${failure.code}: ${failure.message}`);
        await context.report(message, 'failed', failure);
        return;
      }
      await context.report(message, 'sent');
      context.log(`${message.id} sent to ${message.to}`);
    },

    async run(context: DriverContext) {
      while (!context.signal.aborted) {
        try {
          await pickUpInbound(context);
        } catch (error) {
          context.stats.errors += 1;
          context.log(`inbox: ${errorText(error)}; trying again in ${options.inboxIntervalMs} ms`);
        }
        await sleep(options.inboxIntervalMs, context.signal);
      }
    },
  };
}

/** Why termux-sms-send did not send, or null when it did. */
export function sendFailure(result: CommandResult): { code: string; message: string } | null {
  if (result.missing)
    return {
      code: 'command_missing',
      message: 'termux-sms-send is not installed on the phone (pkg install termux-api).',
    };
  if (result.timedOut)
    return { code: 'command_timeout', message: 'termux-sms-send did not finish in time and was killed.' };
  const output = (result.stderr.trim() || result.stdout.trim()).slice(0, 500);
  if (!result.ok) return { code: 'generic_failure', message: output || `termux-sms-send exited with ${result.code}` };
  // Termux:API answers some refusals with exit 0 and {"error": "..."} on stdout.
  try {
    const error = (JSON.parse(result.stdout) as { error?: unknown } | null)?.error;
    if (typeof error === 'string') return { code: 'generic_failure', message: error.slice(0, 500) };
  } catch {
    // no JSON: nothing to say
  }
  return null;
}
