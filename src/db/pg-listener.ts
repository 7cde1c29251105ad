// A LISTEN connection on PostgreSQL for one channel (the event outbox, OAuth revocations):
// writers NOTIFY at commit and every process hears it. A lost connection is re-opened with
// backoff; after each (re)connect onNotify runs once, since notifications sent meanwhile are gone.
import type pg from 'pg';
import { loadPg } from './database.ts';

export interface ListenerLog {
  warn(details: object, message: string): void;
}

// Capped low: once the database is back, the LISTEN connection (and NOTIFY wake-ups) must return
// within seconds; until then the safety-net poll delivers.
const MAX_BACKOFF_MS = 5_000;

export class PgListener {
  private readonly config: pg.ClientConfig;
  private readonly channel: string;
  /** Called with the notification's payload; without one after each (re)connect. */
  private readonly onNotify: (payload?: string) => void;
  private readonly log: ListenerLog;
  private client: pg.Client | null = null;
  private retryTimer: NodeJS.Timeout | undefined;
  private backoffMs = 500;
  private stopped = false;
  /** The LISTEN session's server process id while connected (operations and tests). */
  backendPid: number | null = null;

  constructor(options: {
    config: pg.ClientConfig;
    channel: string;
    onNotify: (payload?: string) => void;
    log: ListenerLog;
  }) {
    this.config = options.config;
    this.channel = options.channel;
    this.onNotify = options.onNotify;
    this.log = options.log;
  }

  /** Resolves after the first attempt, connected or not (later attempts retry in the background). */
  async start(): Promise<void> {
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new (loadPg().Client)(this.config);
    const lost = (error?: Error) => {
      if (this.client !== client) return;
      this.client = null;
      this.backendPid = null;
      client.end().catch(() => {});
      this.retry(error ?? new Error('connection ended'));
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => this.onNotify(message.payload));
    try {
      this.client = client;
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
      const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
      this.backendPid = rows[0].pid;
      this.backoffMs = 500;
      this.onNotify();
    } catch (error) {
      lost(error as Error);
    }
  }

  private retry(error: Error): void {
    if (this.stopped) return;
    this.log.warn({ err: error, retry_ms: this.backoffMs }, 'LISTEN connection lost; reconnecting');
    this.retryTimer = setTimeout(() => void this.connect(), this.backoffMs);
    this.retryTimer.unref();
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
  }
}
