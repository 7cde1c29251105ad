// Caps on long-lived connections (issue 22): how many event-stream WebSockets, console live views
// and MCP waits one organization may hold at once (CELLGATE_MAX_STREAMS_PER_ORG, each kind on its
// own), and how many long-polls one device may hold. A connection takes a slot when it is admitted
// and gives it back exactly once, whichever way it ends. Counted in this process: behind several
// processes an organization may hold up to the cap on each (docs/decisions.md).
import type { Config } from '../config.ts';
import { ApiError } from '../lib/errors.ts';

/** Gives the slot back; calling it again does nothing, so every end path may call it. */
export type Release = () => void;

/** How long a refused client should wait: long enough for a held connection to finish or time out. */
export const CAP_RETRY_AFTER_SECONDS = 5;

/** Concurrent long-polls of one device: the agent needs one or two; a few allow a restart's overlap. */
export const DEVICE_LONG_POLLS = 4;

export class ConnectionCap {
  readonly max: number;
  /** What is counted and per what, for the refusal's detail ("event streams per organization"). */
  private readonly what: string;
  private readonly held = new Map<string, number>();

  constructor(max: number, what: string) {
    this.max = max;
    this.what = what;
  }

  /** The slots `key` holds now. */
  count(key: string): number {
    return this.held.get(key) ?? 0;
  }

  /** A slot for `key`, or null when it holds the cap already. */
  tryAcquire(key: string): Release | null {
    const count = this.count(key);
    if (count >= this.max) return null;
    this.held.set(key, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.count(key) - 1;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
    };
  }

  /** A slot for `key`, or 429 `rate_limited` with Retry-After (HTTP) and retry_after_seconds (MCP). */
  admit(key: string): Release {
    const release = this.tryAcquire(key);
    if (release) return release;
    throw new ApiError(
      'rate_limited',
      `At most ${this.max} concurrent ${this.what}; close one or retry in ${CAP_RETRY_AFTER_SECONDS} s.`,
      {
        headers: { 'Retry-After': String(CAP_RETRY_AFTER_SECONDS) },
        extensions: { retry_after_seconds: CAP_RETRY_AFTER_SECONDS },
      },
    );
  }

  /** Runs `work` in a slot of `key` (429 when there is none), given back when it settles. */
  async hold<T>(key: string, work: () => Promise<T>): Promise<T> {
    const release = this.admit(key);
    try {
      return await work();
    } finally {
      release();
    }
  }
}

export interface ConnectionCaps {
  /** Event-stream WebSockets per organization. */
  streams: ConnectionCap;
  /** Console live views (Server-Sent Events) per organization. */
  liveViews: ConnectionCap;
  /** MCP wait_for_reply / wait_for_delivery calls per organization. */
  mcpWaits: ConnectionCap;
  /** Outbound long-polls per device. */
  deviceLongPolls: ConnectionCap;
}

/** One set per process (built in app.ts), so every route of a kind counts against the same cap. */
export function connectionCaps(config: Pick<Config, 'maxStreamsPerOrg'>): ConnectionCaps {
  const max = config.maxStreamsPerOrg;
  return {
    streams: new ConnectionCap(max, 'event streams per organization'),
    liveViews: new ConnectionCap(max, 'console live views per organization'),
    mcpWaits: new ConnectionCap(max, 'MCP waits per organization'),
    deviceLongPolls: new ConnectionCap(DEVICE_LONG_POLLS, 'long-polls per device'),
  };
}
