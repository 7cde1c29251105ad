// Why the process could not start, as one line that says what to do (main.ts prints it without a
// stack trace; CELLGATE_LOG_LEVEL=debug or trace adds the cause's).
import type { Database, OpenOptions } from '../db/database.ts';
import { isDatabaseUnavailable } from '../db/errors.ts';
import { SqliteFileError } from '../db/sqlite-file.ts';
import { maskedUrl } from '../lib/masked-url.ts';

export class StartError extends Error {}

const text = (error: unknown) => (error instanceof Error ? error.message || error.name : String(error));

/** A failure to open, reach or migrate the database, as what to do about it. */
export function databaseStartError(error: unknown, databaseUrl: string, unreachable: boolean): StartError {
  // The SQLite file's own problems (src/db/sqlite-file.ts) are phrased already.
  if (error instanceof SqliteFileError) return new StartError(error.message, { cause: error });
  const where = maskedUrl(databaseUrl);
  const code = (error as { code?: unknown })?.code;
  const message = unreachable
    ? `cannot reach the database at ${where} (${text(error) || String(code)}): start it, or set CELLGATE_DATABASE_URL to one that is running`
    : code === '28P01' || code === '28000'
      ? `the database at ${where} refused the credentials (${text(error)}): fix the user and password in CELLGATE_DATABASE_URL`
      : code === '3D000'
        ? `the database in ${where} does not exist (${text(error)}): create it (createdb) or fix CELLGATE_DATABASE_URL`
        : `could not open or migrate the database at ${where}: ${text(error)}; fix the database or CELLGATE_DATABASE_URL, then start again (CELLGATE_LOG_LEVEL=debug shows the stack)`;
  return new StartError(message, { cause: error });
}

/**
 * The database at `databaseUrl`, opened and migrated, with the migrations applied now; a failure
 * closes it again and is thrown as what to do about it (databaseStartError). The database code is
 * loaded here, on first use: main.ts reads StartError from this file after any command's failure.
 */
export async function openMigrated(
  databaseUrl: string,
  options?: OpenOptions,
): Promise<{ database: Database; applied: string[] }> {
  const [{ openDatabase }, { migrateToLatest }] = await Promise.all([
    import('../db/database.ts'),
    import('../db/migrate.ts'),
  ]);
  let database: Database | undefined;
  try {
    database = openDatabase(databaseUrl, options);
    return { database, applied: await migrateToLatest(database) };
  } catch (error) {
    await database?.close().catch(() => {});
    throw databaseStartError(error, databaseUrl, isDatabaseUnavailable(error));
  }
}

/** A failure to listen, as what to do about it. */
export function listenStartError(error: unknown, host: string, port: number): StartError {
  const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const notHere = `cannot listen on ${address}: CELLGATE_HOST is not an address of this machine`;
  const advice: Record<string, string> = {
    EADDRINUSE: `port ${port} is already in use on ${host}: stop what is listening on ${address}, or set CELLGATE_PORT to a free port`,
    EACCES: `not allowed to listen on ${address}: choose a port above 1023 with CELLGATE_PORT`,
    EADDRNOTAVAIL: notHere,
    ENOTFOUND: notHere,
  };
  const code = String((error as { code?: unknown })?.code);
  return new StartError(advice[code] ?? `cannot listen on ${address}: ${text(error)}`, { cause: error });
}
