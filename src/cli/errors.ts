// Why the process could not start, as one line that says what to do (main.ts prints it without a
// stack trace; CELLGATE_LOG_LEVEL=debug or trace adds the cause's).
import { SqliteFileError } from '../db/sqlite-file.ts';
import { maskedUrl } from '../lib/masked-url.ts';

export class StartError extends Error {}

/** The database URL with its password hidden, for messages. */
export const redactedDatabaseUrl = maskedUrl;

const text = (error: unknown) => (error instanceof Error ? error.message || error.name : String(error));

/** A failure to open, reach or migrate the database, as what to do about it. */
export function databaseStartError(error: unknown, databaseUrl: string, unreachable: boolean): StartError {
  // The SQLite file's own problems (src/db/sqlite-file.ts) are phrased already.
  if (error instanceof SqliteFileError) return new StartError(error.message, { cause: error });
  const where = redactedDatabaseUrl(databaseUrl);
  const code = (error as { code?: unknown })?.code;
  if (unreachable) {
    return new StartError(
      `cannot reach the database at ${where} (${text(error) || String(code)}): start it, or set CELLGATE_DATABASE_URL to one that is running`,
      { cause: error },
    );
  }
  if (code === '28P01' || code === '28000') {
    return new StartError(
      `the database at ${where} refused the credentials (${text(error)}): fix the user and password in CELLGATE_DATABASE_URL`,
      { cause: error },
    );
  }
  if (code === '3D000') {
    return new StartError(
      `the database in ${where} does not exist (${text(error)}): create it (createdb) or fix CELLGATE_DATABASE_URL`,
      { cause: error },
    );
  }
  return new StartError(
    `could not open or migrate the database at ${where}: ${text(error)}; fix the database or CELLGATE_DATABASE_URL, then start again (CELLGATE_LOG_LEVEL=debug shows the stack)`,
    { cause: error },
  );
}

/** A failure to listen, as what to do about it. */
export function listenStartError(error: unknown, host: string, port: number): StartError {
  const code = (error as { code?: unknown })?.code;
  const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (code === 'EADDRINUSE') {
    return new StartError(
      `port ${port} is already in use on ${host}: stop what is listening on ${address}, or set CELLGATE_PORT to a free port`,
      { cause: error },
    );
  }
  if (code === 'EACCES') {
    return new StartError(`not allowed to listen on ${address}: choose a port above 1023 with CELLGATE_PORT`, {
      cause: error,
    });
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return new StartError(`cannot listen on ${address}: CELLGATE_HOST is not an address of this machine`, {
      cause: error,
    });
  }
  return new StartError(`cannot listen on ${address}: ${text(error)}`, { cause: error });
}
