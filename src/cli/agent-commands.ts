// Agent-side commands over the REST API with an API key (send, messages ls, events tail, status;
// AGENT_USAGE). agent-http.ts finds the service and turns failures into one line; this file parses
// the flags and prints. Progress (the --wait spinner, "listening") goes to stderr, results to stdout.
import type { ParseArgsConfig } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocket } from 'ws';
import { dollarsOfNumber } from '../modules/billing/money.ts';
import {
  AgentCliError,
  apiRequest,
  resolveTarget,
  unreachable,
  webSocketUrl,
  type Json,
  type Target,
} from './agent-http.ts';
import { parseCommandLine, UsageError } from './usage.ts';

export const AGENT_COMMANDS = ['send', 'messages', 'events', 'status'] as const;

const FINAL_STATUSES = new Set(['delivered', 'failed', 'canceled', 'received']);

/** Each command's usage, as --help shows it (main.ts's USAGE holds the same lines). */
export const AGENT_USAGE = {
  send: `usage: cellgate send --cell <cell_id> --to <number> [--idempotency-key <key>] [--wait] "text"
  --cell <cell_id>               the cell to send from (cell_...; required)
  --to <number>                  the recipient, E.164 (+14155550123; required)
  --idempotency-key <key>        a key that makes a retried send safe (the Idempotency-Key header)
  --wait                         wait until the message is delivered, failed or canceled (or sent, from a phone without delivery reports), and print it
  --timeout <S>                  seconds --wait waits at most (default 120)`,
  messages: `usage: cellgate messages ls --cell <cell_id> [--direction inbound|outbound] [--limit <N>] [--cursor <c>]
  --cell <cell_id>               the cell whose messages to list (cell_...; required)
  --direction <dir>              only inbound or only outbound messages
  --limit <N>                    how many messages, newest first (1-200, default 20)
  --cursor <c>                   the next page, as the previous listing printed it`,
  events: `usage: cellgate events tail [--types <t1,t2>] [--since <evt_...>] [--json]
  --types <message.*,cell.*>     only these event types, exact or prefix.* (default: every type)
  --since <evt_...>              first replay the retained events after this one
  --json                         print each event's envelope as one JSON line`,
  status: `usage: cellgate status
  (checks the organization, cells, messages, billing and webhooks; exit code 1 when one fails)`,
};

const COMMON = `  --base-url <url>               the service to call (default: CELLGATE_BASE_URL, else CELLGATE_HOST:CELLGATE_PORT, 127.0.0.1:8080)
  --key <cg_live_...>            the API key (default: CELLGATE_API_KEY)`;

type Out = (line: string) => void;
const stdout: Out = (line) => process.stdout.write(`${line}\n`);
const stderr: Out = (line) => process.stderr.write(`${line}\n`);

const COMMON_OPTIONS = {
  'base-url': { type: 'string' },
  key: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/** The command's flags (usage.ts: --help, before parsing, prints the usage and exits 0; a bad flag exits 2). */
function parse<O extends NonNullable<ParseArgsConfig['options']>>(
  command: keyof typeof AGENT_USAGE,
  args: string[],
  options: O,
  positionals = false,
) {
  return parseCommandLine(
    {
      command: `cellgate ${command}`,
      usage: usageOf(command),
      options: { ...COMMON_OPTIONS, ...options },
      positionals,
    },
    args,
  );
}

function targetOf(values: { 'base-url'?: string; key?: string }): Target {
  return resolveTarget({ baseUrl: values['base-url'], key: values.key });
}

const usageOf = (command: keyof typeof AGENT_USAGE) => `${AGENT_USAGE[command]}\n${COMMON}`;

function requireFlag(name: string, value: string | undefined, pattern: RegExp, what: string): string {
  if (value === undefined || value === '') throw new UsageError(`--${name} is required: ${what}`);
  if (!pattern.test(value)) throw new UsageError(`--${name} ${JSON.stringify(value)} is not ${what}`);
  return value;
}

function wholeNumber(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || value < min || value > max)
    throw new UsageError(`--${name} ${JSON.stringify(raw)} must be a whole number from ${min} to ${max}`);
  return value;
}

const CELL_ID = /^cell_[0-9a-z]+$/;

/** What a command waits with between reconnects (tests pass one that does not sleep). */
export interface AgentCommandOptions {
  wait?: (ms: number) => Promise<void>;
}

export async function agentCommand(
  command: string,
  args: string[],
  out: Out = stdout,
  progress: Out = stderr,
  options: AgentCommandOptions = {},
): Promise<void> {
  switch (command) {
    case 'send':
      return sendCommand(args, out, progress);
    case 'messages':
      return messagesCommand(args, out, progress);
    case 'events':
      return eventsCommand(args, out, progress, options.wait ?? ((ms) => sleep(ms)));
    case 'status':
      return statusCommand(args, out);
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}

// ---- send ----------------------------------------------------------------------------------------

async function sendCommand(args: string[], out: Out, progress: Out): Promise<void> {
  const { values, positionals } = parse(
    'send',
    args,
    {
      cell: { type: 'string' },
      to: { type: 'string' },
      'idempotency-key': { type: 'string' },
      wait: { type: 'boolean' },
      timeout: { type: 'string' },
    },
    true,
  );
  const cell = requireFlag('cell', values.cell, CELL_ID, 'a cell id (cell_...)');
  const to = requireFlag('to', values.to, /^\+?[\d\s().-]{3,}$/, 'a phone number (E.164, +14155550123)');
  const text = positionals.join(' ');
  if (text.trim() === '')
    throw new UsageError('the text to send is missing: cellgate send --cell <cell_id> --to <number> "text"');
  const key = values['idempotency-key'];
  if (key !== undefined && (key.trim() === '' || key.length > 255))
    throw new UsageError('--idempotency-key must be 1 to 255 characters');
  const timeoutSeconds = values.timeout === undefined ? 120 : wholeNumber('timeout', values.timeout, 1, 86_400);
  if (values.timeout !== undefined && !values.wait) throw new UsageError('--timeout goes with --wait');
  const target = targetOf(values);

  const sent = await apiRequest(target, 'POST', `/v1/cells/${cell}/messages/send`, {
    body: { to, body: text },
    headers: key === undefined ? {} : { 'idempotency-key': key },
  });
  out(
    `${String(sent.id)} ${String(sent.status)} (from ${String(sent.from)} to ${String(sent.to)}, ${String(sent.segments)} segment${sent.segments === 1 ? '' : 's'})`,
  );
  if (!values.wait) return;
  // A phone without delivery reports never makes a message `delivered`: the wait ends at `sent`.
  const deliveryReports = await reportsDelivery(target, cell);
  const final = await waitUntilFinal(target, cell, sent, timeoutSeconds * 1000, progress, deliveryReports);
  if (!deliveryReports && final.status === 'sent')
    out(`${String(final.id)} was sent; the cell's phone does not report delivery, so sent is as far as it goes`);
  printMessage(final, out);
  if (final.status === 'failed' || final.status === 'canceled') process.exitCode = 1;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const POLL_MS = 500;

/** Whether the cell's phone reports delivery (its `capabilities`; a server without them does). */
async function reportsDelivery(target: Target, cell: string): Promise<boolean> {
  const found = await apiRequest(target, 'GET', `/v1/cells/${cell}`);
  return (found.capabilities as { delivery_reports?: unknown } | undefined)?.delivery_reports !== false;
}

/** Why a message is still where it is after the wait: the phone is blamed only when it is offline. */
async function stillBecause(target: Target, cell: string, status: string): Promise<string> {
  let found: Json;
  try {
    found = await apiRequest(target, 'GET', `/v1/cells/${cell}`);
  } catch {
    return "cellgate status shows whether the cell's phone is online";
  }
  if (found.online !== true) {
    return `the cell's phone is offline${typeof found.last_seen_at === 'string' ? `, last seen ${found.last_seen_at}` : ''}; it picks the message up when it calls in again`;
  }
  if (status === 'sent') return 'the phone is online and sent it; the delivery report has not arrived yet';
  if (status === 'sending') return 'the phone is online and is sending it';
  return 'the phone is online but has not picked it up yet';
}

/**
 * Polls the message until it is final (or `sent`, from a phone without delivery reports): a
 * spinner on a terminal, a line per status change otherwise.
 */
async function waitUntilFinal(
  target: Target,
  cell: string,
  sent: Json,
  timeoutMs: number,
  progress: Out,
  deliveryReports: boolean,
): Promise<Json> {
  const tty = process.stderr.isTTY === true;
  const started = Date.now();
  const id = String(sent.id);
  let status = String(sent.status);
  let frame = 0;
  if (!tty) progress(`waiting for ${id}: ${status}`);
  const spin = tty
    ? setInterval(
        () =>
          process.stderr.write(
            `\r${SPINNER[frame++ % SPINNER.length]} ${id} is ${status} (${Math.round((Date.now() - started) / 1000)} s)\x1b[K`,
          ),
        100,
      )
    : null;
  try {
    for (;;) {
      const message = await apiRequest(target, 'GET', `/v1/cells/${cell}/messages/${id}`);
      if (message.status !== status) {
        status = String(message.status);
        if (!tty) progress(`waiting for ${id}: ${status}`);
      }
      if (FINAL_STATUSES.has(status) || (!deliveryReports && status === 'sent')) return message;
      if (Date.now() - started >= timeoutMs) {
        const because = await stillBecause(target, cell, status);
        throw new AgentCliError(
          `${id} is still ${status} after ${Math.round(timeoutMs / 1000)} s (${because}); read it later with cellgate messages ls --cell ${cell}`,
        );
      }
      await sleep(POLL_MS);
    }
  } finally {
    if (spin) {
      clearInterval(spin);
      process.stderr.write('\r\x1b[K');
    }
  }
}

const SHOWN = ['id', 'status', 'direction', 'from', 'to', 'body', 'segments', 'created_at', 'sent_at', 'delivered_at'];

function printMessage(message: Json, out: Out): void {
  const error = message.error as { code?: string; message?: string } | null;
  const rows = [
    ...SHOWN.map((name) => [name, message[name]]),
    ['error', error ? `${error.code}: ${error.message}` : null],
  ];
  for (const [name, value] of rows)
    if (value !== null && value !== undefined) out(`${String(name).padEnd(13)}${String(value)}`);
}

// ---- messages ls ---------------------------------------------------------------------------------

async function messagesCommand(args: string[], out: Out, progress: Out): Promise<void> {
  const [action, ...rest] = args;
  if (action === '--help' || action === '-h' || action === undefined) return out(usageOf('messages'));
  if (action !== 'ls' && action !== 'list')
    throw new UsageError(`unknown action ${JSON.stringify(action)}: cellgate messages ls --cell <cell_id>`);
  const { values } = parse('messages', rest, {
    cell: { type: 'string' },
    direction: { type: 'string' },
    limit: { type: 'string' },
    cursor: { type: 'string' },
  });
  const cell = requireFlag('cell', values.cell, CELL_ID, 'a cell id (cell_...)');
  if (values.direction !== undefined && values.direction !== 'inbound' && values.direction !== 'outbound') {
    throw new UsageError(`--direction ${JSON.stringify(values.direction)} must be inbound or outbound`);
  }
  const limit = values.limit === undefined ? 20 : wholeNumber('limit', values.limit, 1, 200);
  const target = targetOf(values);
  const page = await apiRequest(target, 'GET', `/v1/cells/${cell}/messages`, {
    query: { direction: values.direction, limit, cursor: values.cursor },
  });
  const messages = (page.messages ?? []) as Json[];
  if (messages.length === 0) {
    out('no messages');
  } else {
    table(
      out,
      ['ID', 'DIRECTION', 'STATUS', 'FROM', 'TO', 'CREATED', 'BODY'],
      messages.map((m) => [
        String(m.id),
        String(m.direction),
        String(m.status),
        String(m.from ?? ''),
        String(m.to ?? ''),
        String(m.created_at),
        oneLine(String(m.body ?? ''), 40),
      ]),
    );
  }
  if (typeof page.next_cursor === 'string')
    progress(`more: cellgate messages ls --cell ${cell} --cursor ${page.next_cursor}`);
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function table(out: Out, header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  out(line(header));
  for (const row of rows) out(line(row));
}

// ---- events tail ---------------------------------------------------------------------------------

interface Envelope {
  id: string;
  type: string;
  created_at: string;
  data: Json;
}

/** One line per event: when, type, id and what it is about. */
export function eventLine(event: Envelope): string {
  const d = event.data ?? {};
  let about: string;
  if (event.type.startsWith('message.')) {
    const error = d.error as { code?: string } | null;
    about = `${String(d.id)} ${String(d.direction)} ${String(d.from)} -> ${String(d.to)} ${String(d.status)}${error?.code ? ` (${error.code})` : ''} "${oneLine(String(d.body ?? ''), 60)}"`;
  } else if (event.type.startsWith('cell.')) {
    about = `${String(d.id)} "${String(d.display_name ?? '')}" ${String(d.status)} ${String(d.phone_number ?? 'no number')}${d.online === undefined ? '' : d.online ? ' online' : ' offline'}`;
  } else {
    about = oneLine(JSON.stringify(d), 120);
  }
  return `${event.created_at}  ${event.type.padEnd(18)} ${event.id}  ${about}`;
}

const RECONNECT_CODES = new Set([1001, 1006, 1011]);
/** Seconds before reconnect n (1, 2, 4, ... at most 30): a restarting service is not hammered. */
const backoffMs = (failures: number) => Math.min(30, 2 ** (failures - 1)) * 1000;

/**
 * Once the stream has been open, a lost connection is tried again for as long as it takes (a
 * service restarting refuses connections, or its proxy answers 502/503, for a while); before
 * that, a failure is the command's mistake (a wrong URL or key) and ends it.
 */
async function eventsCommand(
  args: string[],
  out: Out,
  progress: Out,
  wait: (ms: number) => Promise<void>,
): Promise<void> {
  const [action, ...rest] = args;
  if (action === '--help' || action === '-h' || action === undefined) return out(usageOf('events'));
  if (action !== 'tail')
    throw new UsageError(`unknown action ${JSON.stringify(action)}: cellgate events tail [--types message.*,cell.*]`);
  const { values } = parse('events', rest, {
    types: { type: 'string' },
    since: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (
    values.types !== undefined &&
    !/^[a-z_]+\.(\*|[a-z_]+)(,[a-z_]+\.(\*|[a-z_]+))*$/.test(values.types.replace(/\s/g, ''))
  ) {
    throw new UsageError(
      `--types ${JSON.stringify(values.types)} must be comma-separated event types, exact or prefix.* (message.*,cell.online)`,
    );
  }
  if (values.since !== undefined && !/^evt_[0-9a-z]+$/.test(values.since))
    throw new UsageError(`--since ${JSON.stringify(values.since)} is not an event id (evt_...)`);
  const target = targetOf(values);
  const types = values.types?.replace(/\s/g, '');
  let since = values.since;
  let failures = 0;
  let connected = false;
  let stopping = false;
  let current: WebSocket | null = null;
  const onSignal = () => {
    stopping = true;
    current?.close(1000);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    for (;;) {
      const query = new URLSearchParams();
      if (types) query.set('types', types);
      if (since) query.set('since', since);
      const url = webSocketUrl(target.baseUrl, `/v1/events/stream${query.size ? `?${query}` : ''}`);
      const result = await new Promise<
        { code: number; reason: string; ready: boolean } | { error: AgentCliError; transient: boolean; cause: string }
      >((resolve) => {
        const socket = new WebSocket(url, {
          headers: { authorization: `Bearer ${target.key}` },
          handshakeTimeout: 30_000,
        });
        current = socket;
        let ready = false;
        socket.on('message', (data) => {
          let frame: { type?: string; event?: Envelope };
          try {
            frame = JSON.parse(String(data)) as typeof frame;
          } catch {
            return;
          }
          if (frame.type === 'ready') {
            ready = true;
            connected = true;
            failures = 0;
            progress(`listening for ${types ? `${types} ` : ''}events at ${target.baseUrl} (Ctrl-C to stop)`);
          } else if (frame.type === 'event' && frame.event) {
            since = frame.event.id;
            out(values.json ? JSON.stringify(frame.event) : eventLine(frame.event));
          }
        });
        socket.on('unexpected-response', (_request, response) => {
          const status = response.statusCode ?? 0;
          const cause = `the event stream answered HTTP ${status} instead of a WebSocket`;
          resolve({ error: unreachable(target.baseUrl, cause), transient: status === 429 || status >= 500, cause });
          response.resume();
          socket.terminate();
        });
        socket.on('error', (error: Error & { code?: string }) => {
          const cause = error.code ?? error.message;
          resolve({ error: unreachable(target.baseUrl, cause), transient: true, cause });
        });
        socket.on('close', (code, reason) => resolve({ code, reason: reason.toString(), ready }));
      });
      if (stopping) return;
      let why: string;
      if ('error' in result) {
        if (!connected || !result.transient) throw result.error;
        why = `reconnecting failed (${result.cause})`;
      } else {
        if (result.code >= 4000)
          throw new AgentCliError(`the event stream closed (${result.code}): ${result.reason || 'no reason given'}`);
        why = `the event stream closed (${result.code}${result.reason ? `: ${result.reason}` : ''})`;
        if (!RECONNECT_CODES.has(result.code))
          throw new AgentCliError(`${why}; run cellgate events tail${since ? ` --since ${since}` : ''} to resume`);
      }
      const delay = backoffMs(++failures);
      progress(`${why}; reconnecting in ${delay / 1000} s${since ? ` after ${since}` : ''}`);
      await wait(delay);
      if (stopping) return;
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

// ---- status --------------------------------------------------------------------------------------

async function statusCommand(args: string[], out: Out): Promise<void> {
  const { values } = parse('status', args, {});
  const status = await apiRequest(targetOf(values), 'GET', '/v1/agent/status');
  const org = (status.organization ?? {}) as Json;
  const billing = (status.billing ?? {}) as Json;
  const cells = (status.cells ?? {}) as Json;
  out(`organization ${String(org.name ?? '')} (${String(org.id)}) is ${String(org.status)}`);
  out(
    `billing ${String(billing.state)}${billing.tier ? ` on ${String(billing.tier)}` : ''}, prepaid balance ${dollarsOfNumber(Number(billing.prepaid_balance_usd ?? 0))}`,
  );
  out(
    `cells ${Object.entries(cells)
      .map(([name, count]) => `${name} ${String(count)}`)
      .join(', ')}`,
  );
  const checks = (status.checks ?? []) as { name: string; status: string; detail: string }[];
  const width = Math.max(0, ...checks.map((c) => c.name.length));
  for (const check of checks) out(`${check.status.padEnd(4)}  ${check.name.padEnd(width)}  ${check.detail}`);
  if (checks.some((check) => check.status === 'fail')) process.exitCode = 1;
}
