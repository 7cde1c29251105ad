// What can go wrong with the SQLite file before any query runs, each said in one line: a path
// SQLite cannot use (under /proc, a directory), a file or directory this user cannot write (a
// read-only file opens and reads fine, so the service would start and then fail every write),
// and a second `cellgate serve` on the same file (docs/decisions.md, "One server per SQLite file").
import { accessSync, constants, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, resolve } from 'node:path';

/** The SQLite file cannot be used; the message is one line that says what to do. */
export class SqliteFileError extends Error {}

const SQLITE_READONLY = 8;
const SQLITE_READONLY_DIRECTORY = 1544;
const SQLITE_CANTOPEN = 14;
const SQLITE_NOTADB = 26;

function currentUser(): string {
  try {
    return userInfo().username;
  } catch {
    // A uid without a passwd entry (containers).
    return `uid ${process.getuid?.() ?? '?'}`;
  }
}

/** A SQLite write refused because the file or its directory is read-only (also PRAGMA query_only). */
export function isReadOnlyError(error: unknown): boolean {
  const errcode = (error as { errcode?: unknown })?.errcode;
  return typeof errcode === 'number' && (errcode & 0xff) === SQLITE_READONLY;
}

/**
 * Refuses paths SQLite cannot keep a database at, before SQLite tries: pseudo-filesystems (a path
 * under /proc could block on open with no output) and anything that exists but is not a file.
 * Creates the directory.
 */
export function prepareSqlitePath(path: string): void {
  const absolute = resolve(path);
  if (/^\/(proc|sys)(\/|$)/.test(absolute) || /^\/dev\/(?!shm\/)/.test(absolute)) {
    throw new SqliteFileError(
      `the database path ${path} is on ${absolute.split('/')[1] === 'dev' ? '/dev' : `/${absolute.split('/')[1]}`}, not a disk: set CELLGATE_DATABASE_URL to sqlite:<a file on a disk> (default sqlite:./data/cellgate.db)`,
    );
  }
  let isFile = true;
  try {
    isFile = statSync(absolute).isFile();
  } catch {
    // Not there yet: SQLite creates it.
  }
  if (!isFile)
    throw new SqliteFileError(
      `the database path ${path} exists and is not a file: set CELLGATE_DATABASE_URL to sqlite:<a file path>`,
    );
  try {
    mkdirSync(dirname(absolute), { recursive: true });
  } catch (error) {
    throw new SqliteFileError(
      `cannot create the directory ${dirname(path)} for the database file ${path} as user ${currentUser()}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** An error from opening the file (node:sqlite) as what to do about it. */
export function sqliteOpenError(path: string, error: unknown): SqliteFileError {
  const errcode = (error as { errcode?: unknown })?.errcode;
  const reason = error instanceof Error ? error.message : String(error);
  const user = currentUser();
  const fix = `give user ${user} write access, or set CELLGATE_DATABASE_URL to a file it can write`;
  // With -wal and -shm left behind (a crash), SQLite says only "readonly" of a read-only directory.
  if (errcode === SQLITE_READONLY_DIRECTORY || (isReadOnlyError(error) && !writable(dirname(path)))) {
    return new SqliteFileError(
      `cannot write in the directory ${dirname(path)} of the database file ${path} as user ${user} (SQLite creates ${path}-wal and ${path}-shm there): ${reason}; ${fix}`,
      { cause: error },
    );
  }
  if (isReadOnlyError(error))
    return new SqliteFileError(`cannot write the database file ${path} as user ${user}: ${reason}; ${fix}`, {
      cause: error,
    });
  if (errcode === SQLITE_CANTOPEN)
    return new SqliteFileError(
      `cannot open the database file ${path} as user ${user}: ${reason}; ${fix} (and its directory)`,
      { cause: error },
    );
  if (errcode === SQLITE_NOTADB)
    return new SqliteFileError(
      `${path} is not an SQLite database (${reason}): set CELLGATE_DATABASE_URL to the service's database file`,
      { cause: error },
    );
  return new SqliteFileError(`cannot open the database file ${path} as user ${user}: ${reason}`, { cause: error });
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether `pid` is a running process that could be a cellgate server (a node process, where that can be told). */
function runningNode(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as { code?: string }).code !== 'EPERM') return false;
  }
  try {
    // Linux: a pid reused by something else since a crash (a container restart) is not a holder.
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('node');
  } catch {
    return true;
  }
}

/**
 * Takes `<path>.lock` for this process: the file holds the pid of the server using the database.
 * A lock whose pid is gone (a crash, kill -9) is stale and taken over. Answers the release, which
 * also runs when the process exits.
 */
export function lockSqliteFile(path: string): () => void {
  const lockPath = `${path}.lock`;
  const mine = `${process.pid}\n`;
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(lockPath, mine, { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw sqliteLockError(path, lockPath, error);
    }
    let holder = Number.NaN;
    try {
      holder = Number.parseInt(readFileSync(lockPath, 'utf8'), 10);
    } catch {
      // Removed meanwhile: try again.
    }
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && runningNode(holder)) {
      throw new SqliteFileError(
        `${path} is in use by another cellgate process (pid ${holder}); use PostgreSQL for several processes (CELLGATE_DATABASE_URL=postgres://...), or stop that process`,
      );
    }
    if (attempt >= 3)
      throw new SqliteFileError(
        `cannot take the lock ${lockPath}: it keeps changing; is another cellgate starting on ${path}?`,
      );
    try {
      unlinkSync(lockPath);
    } catch {
      // Another starter took it over first: the next attempt reads its pid.
    }
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    try {
      if (readFileSync(lockPath, 'utf8') === mine) unlinkSync(lockPath);
    } catch {
      // Already gone.
    }
  };
  process.on('exit', release);
  return release;
}

function sqliteLockError(path: string, lockPath: string, error: unknown): SqliteFileError {
  const user = currentUser();
  return new SqliteFileError(
    `cannot write in the directory ${dirname(path)} of the database file ${path} as user ${user} (creating ${lockPath}: ${(error as Error).message}); give user ${user} write access, or set CELLGATE_DATABASE_URL to a file it can write`,
    { cause: error },
  );
}
