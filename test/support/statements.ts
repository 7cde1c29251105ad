// What an app runs on its database, seen through the observed dialect (src/db/observed-dialect.ts):
// the statements of one request, or a broken connection from the first commit on.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Statement } from '../../src/db/observed-dialect.ts';

/** A statement as a lost PostgreSQL connection fails it (src/db/errors.ts: database unavailable). */
function connectionLost(): Error {
  return Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
}

export class Statements {
  /** The statements of the work being recorded: its own only (not a timer's, not another request's). */
  private readonly recorded = new AsyncLocalStorage<Statement[]>();
  private failing: 'off' | 'after-commit' | 'on' = 'off';

  /** Pass as startApp's `observe`. */
  readonly observe = (statement: Statement): void => {
    this.recorded.getStore()?.push(statement);
    if (this.failing === 'on') throw connectionLost();
    if (this.failing === 'after-commit' && /^\s*commit\b/i.test(statement.sql)) this.failing = 'on';
  };

  /** The statements `work` ran, in its own async context (and its result). */
  async during<T>(work: () => Promise<T>): Promise<{ result: T; statements: Statement[] }> {
    const recorded: Statement[] = [];
    // Awaited inside: a lazy thenable (app.inject) starts its work when awaited.
    return { result: await this.recorded.run(recorded, async () => await work()), statements: recorded };
  }

  /** Runs `work` with every statement after the first commit failing, as if the connections were killed then. */
  async failingAfterCommit<T>(work: () => Promise<T>): Promise<T> {
    this.failing = 'after-commit';
    try {
      return await work();
    } finally {
      this.failing = 'off';
    }
  }
}
