// The setup of a multi-process test: a PostgreSQL database of its own and real server processes on
// it, started before the suite's tests and stopped (the database dropped) after them. Call it
// inside the suite's describe() (skipped without PostgreSQL: `skipUnlessPostgres`); the suite's
// own before() hooks, registered after it, run once the processes are up.
import { after, before } from 'node:test';
import { createDatabase, startServerProcess, type ChildServer } from '../processes.ts';

export interface ServerProcesses {
  /** The processes, in start order. */
  readonly all: readonly ChildServer[];
  /** The first and second process. */
  readonly a: ChildServer;
  readonly b: ChildServer;
  /** Their database, for a direct client. */
  readonly databaseUrl: string;
}

/**
 * `count` (default 2) `cellgate serve` processes on one new database named after `prefix`, with
 * `env` added to each's environment. The first starts alone (it migrates the database), the
 * others together after it.
 */
export function useServerProcesses(
  prefix: string,
  options: { count?: number; env?: Record<string, string> } = {},
): ServerProcesses {
  let database: { url: string; drop(): Promise<void> } | undefined;
  const servers: ChildServer[] = [];
  const started = (i: number) => {
    const server = servers[i];
    if (!server) throw new Error(`server process ${i} is not running (used outside the suite's tests?)`);
    return server;
  };

  before(async () => {
    database = await createDatabase(prefix);
    const url = database.url;
    servers.push(await startServerProcess(url, options.env));
    const rest = Array.from({ length: (options.count ?? 2) - 1 }, () => startServerProcess(url, options.env));
    servers.push(...(await Promise.all(rest)));
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await database?.drop();
  });

  return {
    all: servers,
    get a() {
      return started(0);
    },
    get b() {
      return started(1);
    },
    get databaseUrl() {
      if (!database) throw new Error('the database is not created yet');
      return database.url;
    },
  };
}
