// What a real phone keeps in --state-dir between runs: the last inbox text it picked up
// (state.json) and the reports and uploads not accepted yet (outbox.jsonl, one call per line),
// both written atomically: a phone offline for an hour, or restarted, loses nothing. Node 22 APIs.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import {
  backoffMs,
  describeAnswer,
  errorText,
  FatalDeviceError,
  retryable,
  sleep,
  type Answer,
  type CallSink,
  type DeviceEvent,
  type OutgoingCall,
} from './device-driver.ts';

/** Writes `text` to `path` so a reader sees the old or the new file, never half of one. */
export function writeFileAtomic(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
}

/** state.json: missing means a first run, unreadable means corrupted (both start from the newest text). */
export class StateFile {
  readonly path: string;
  /** Why the file on disk could not be used, when it could not. */
  readonly problem: string | null = null;
  /** The highest inbox `_id` already queued for upload; null before the first look at the inbox. */
  private last: number | null = null;

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true });
    this.path = join(dir, 'state.json');
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.problem = errorText(error);
      return;
    }
    try {
      const id = (JSON.parse(text) as { last_inbox_id?: unknown }).last_inbox_id;
      if (id !== null && !(typeof id === 'number' && Number.isSafeInteger(id) && id >= 0))
        throw new Error('last_inbox_id is not a whole number');
      this.last = id;
    } catch (error) {
      this.problem = `${this.path} is corrupted (${errorText(error)})`;
    }
  }

  get lastInboxId(): number | null {
    return this.last;
  }

  setLastInboxId(id: number): void {
    this.last = id;
    writeFileAtomic(this.path, `${JSON.stringify({ last_inbox_id: id, updated_at: new Date().toISOString() })}\n`);
  }
}

interface QueuedCall extends OutgoingCall {
  attempts: number;
}

export interface OutboxOptions {
  dir: string;
  /** One attempt of a call (device-driver.ts deviceCaller). */
  call: (method: string, path: string, body: unknown) => Promise<Answer>;
  log: (line: string) => void;
  /** Called once a report was accepted (2xx). */
  onReport?: (messageId: string, event: DeviceEvent) => void;
  /** Called with the 401 that stops the phone. */
  onFatal: (error: FatalDeviceError) => void;
  /** Longest wait between attempts (default 60 s). */
  maxBackoffMs?: number;
}

/**
 * outbox.jsonl: reports and inbound uploads in the order they were made. Each is tried at once;
 * on a network error, 429 or 5xx (and 409 for an inbound text while the phone has no cell) it
 * stays queued and is retried with backoff (honouring Retry-After) — one sleeping worker, no busy
 * loop. Other 4xx are dropped with a log line (they will never change); 401 stops the phone.
 */
export class Outbox implements CallSink {
  readonly path: string;
  private readonly options: OutboxOptions;
  private queue: QueuedCall[] = [];
  private wake: (() => void) | null = null;
  private readonly halt = new AbortController();
  private worker: Promise<void> | null = null;
  private failures = 0;

  constructor(options: OutboxOptions) {
    this.options = options;
    mkdirSync(options.dir, { recursive: true });
    this.path = join(options.dir, 'outbox.jsonl');
    let text = '';
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      let entry: QueuedCall | null = null;
      try {
        entry = JSON.parse(line) as QueuedCall;
      } catch {
        // A line cut short by a crash mid-write (not possible with the atomic rewrite, but cheap to survive).
      }
      const readable = (entry?.kind === 'event' || entry?.kind === 'inbound') && typeof entry.path === 'string';
      if (readable && entry!.body && typeof entry!.body === 'object') this.queue.push(entry!);
      else options.log(`outbox: skipping an unreadable line in ${this.path}`);
    }
  }

  get size(): number {
    return this.queue.length;
  }

  /** Starts the worker (after the first heartbeat). */
  start(): void {
    this.worker ??= this.work();
  }

  async submit(call: OutgoingCall): Promise<{ accepted: boolean; answer: Answer | null }> {
    this.queue.push({ ...call, attempts: 0 });
    this.persist();
    this.wake?.();
    return { accepted: true, answer: null };
  }

  /** Stops the worker; what is queued stays on disk for the next run. */
  async stop(): Promise<void> {
    this.halt.abort();
    this.wake?.();
    await this.worker;
  }

  private persist(): void {
    writeFileAtomic(this.path, this.queue.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
  }

  private async work(): Promise<void> {
    while (!this.halt.signal.aborted) {
      const head = this.queue[0];
      if (!head) {
        await new Promise<void>((done) => {
          this.wake = done;
        });
        this.wake = null;
        continue;
      }
      const wait = await this.attempt(head);
      if (wait === null) {
        this.failures = 0;
        this.queue = this.queue.filter((entry) => entry !== head);
        this.persist();
        continue;
      }
      head.attempts += 1;
      this.failures += 1;
      // Keep the order (a report after its message's earlier ones) and sleep: a new entry does not cut the wait short.
      await sleep(wait, this.halt.signal);
    }
  }

  /** null when the entry is done (accepted or dropped); otherwise how long to wait before trying again. */
  private async attempt(entry: QueuedCall): Promise<number | null> {
    const what =
      entry.kind === 'event' ? `${entry.messageId} ${entry.event}` : `inbound ${String(entry.body.device_message_id)}`;
    const maxBackoff = this.options.maxBackoffMs ?? 60_000;
    let answer: Answer;
    try {
      answer = await this.options.call('POST', entry.path, entry.body);
    } catch (error) {
      const wait = backoffMs(this.failures, maxBackoff);
      this.options.log(
        `outbox: ${what}: network error (${errorText(error)}); ${this.queue.length} queued, retrying in ${wait} ms`,
      );
      return wait;
    }
    if (answer.status >= 200 && answer.status < 300) {
      if (entry.kind === 'event' && entry.messageId && entry.event)
        this.options.onReport?.(entry.messageId, entry.event);
      this.options.log(`outbox: ${what} accepted (${answer.status})`);
      return null;
    }
    if (answer.status === 401) {
      this.options.onFatal(new FatalDeviceError(`${what}: ${describeAnswer(answer)}`));
      this.halt.abort();
      return maxBackoff;
    }
    if (retryable(answer.status) || (entry.kind === 'inbound' && answer.status === 409)) {
      const wait = Math.min(
        answer.retryAfterMs ?? backoffMs(this.failures, maxBackoff),
        Math.max(maxBackoff, answer.retryAfterMs ?? 0),
      );
      this.options.log(`outbox: ${what}: ${describeAnswer(answer)}; retrying in ${wait} ms`);
      return wait;
    }
    this.options.log(`outbox: ${what} refused, dropped: ${describeAnswer(answer)}`);
    return null;
  }
}
