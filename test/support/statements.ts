// What an app runs on its database, seen through the observed dialect (src/db/observed-dialect.ts):
// the statements of one request, or a broken connection from the first commit on.
import type { Statement } from '../../src/db/observed-dialect.ts';

/** A statement as a lost PostgreSQL connection fails it (src/db/errors.ts: database unavailable). */
function connectionLost(): Error {
  return Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
}

export class Statements {
  private recorded: Statement[] | null = null;
  private failing: 'off' | 'after-commit' | 'on' = 'off';

  /** Pass as startApp's `observe`. */
  readonly observe = (statement: Statement): void => {
    this.recorded?.push(statement);
    if (this.failing === 'on') throw connectionLost();
    if (this.failing === 'after-commit' && /^\s*commit\b/i.test(statement.sql)) this.failing = 'on';
  };

  /** The statements `work` ran (and its result). */
  async during<T>(work: () => Promise<T>): Promise<{ result: T; statements: Statement[] }> {
    const recorded: Statement[] = [];
    this.recorded = recorded;
    try {
      return { result: await work(), statements: recorded };
    } finally {
      this.recorded = null;
    }
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
