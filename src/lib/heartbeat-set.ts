// The open connections of a long-lived stream (console live views, the event WebSocket) and the
// timer that beats for them: it starts with the first connection and stops with the last, so an
// idle process keeps no timer.

export class HeartbeatSet<T> implements Iterable<T> {
  private readonly members = new Set<T>();
  private readonly periodMs: number;
  private readonly beat: () => void;
  private timer: NodeJS.Timeout | undefined;

  constructor(periodMs: number, beat: () => void) {
    this.periodMs = periodMs;
    this.beat = beat;
  }

  get size(): number {
    return this.members.size;
  }

  add(member: T): void {
    this.members.add(member);
    this.timer ??= setInterval(this.beat, this.periodMs).unref();
  }

  delete(member: T): void {
    this.members.delete(member);
    if (this.members.size > 0) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  [Symbol.iterator](): Iterator<T> {
    return this.members.values();
  }
}
