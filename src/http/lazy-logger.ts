// Per-request loggers created on first use. Fastify makes a child logger (bound to the request
// id) for every request; most requests never log above the configured level, so building the
// pino child up front is wasted work on the hot path.
import type { FastifyBaseLogger } from 'fastify';

type Method = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

class LazyChildLogger {
  private readonly parent: FastifyBaseLogger;
  private readonly bindings: Record<string, unknown>;
  private readonly options: object;
  private real: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Record<string, unknown>, options: object) {
    this.parent = parent;
    this.bindings = bindings;
    this.options = options;
  }

  private get logger(): FastifyBaseLogger {
    this.real ??= this.parent.child(this.bindings, this.options);
    return this.real;
  }

  get level(): string {
    return this.real?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  private write(method: Method, args: unknown[]): void {
    // pino loggers answer isLevelEnabled; Fastify's silent logger (logger: false) has no levels.
    const enabled = (this.parent as unknown as { isLevelEnabled?(level: string): boolean }).isLevelEnabled;
    if (enabled && !enabled.call(this.parent, method)) return;
    (this.logger[method] as (...a: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]) {
    this.write('fatal', args);
  }
  error(...args: unknown[]) {
    this.write('error', args);
  }
  warn(...args: unknown[]) {
    this.write('warn', args);
  }
  info(...args: unknown[]) {
    this.write('info', args);
  }
  debug(...args: unknown[]) {
    this.write('debug', args);
  }
  trace(...args: unknown[]) {
    this.write('trace', args);
  }
  silent() {}

  child(bindings: Record<string, unknown>, options?: object): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

export function lazyChildLogger(
  parent: FastifyBaseLogger,
  bindings: Record<string, unknown>,
  options: object,
): FastifyBaseLogger {
  return new LazyChildLogger(parent, bindings, options) as unknown as FastifyBaseLogger;
}
