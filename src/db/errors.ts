// Database error classification shared by repositories of both dialects.

/** A unique constraint failed (SQLite or PostgreSQL). */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown; errcode?: unknown; message?: unknown };
  return (
    e?.code === '23505' ||
    e?.errcode === 2067 ||
    (typeof e?.message === 'string' && e.message.includes('UNIQUE constraint failed'))
  );
}

/** Runs `write`; when a unique index refuses it (two writers at once: the index decides), throws `refusal()`. */
export async function unlessTaken<T>(write: Promise<T>, refusal: () => Error): Promise<T> {
  try {
    return await write;
  } catch (error) {
    throw isUniqueViolation(error) ? refusal() : error;
  }
}

// Node socket errors that mean the database server cannot be reached or the connection broke.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

// node-postgres and pg-pool raise these as plain Errors, identified only by their message.
const PG_CONNECTION_MESSAGES = [
  'Connection terminated', // "... unexpectedly", "... due to connection timeout"
  'timeout exceeded when trying to connect', // pool checkout (connectionTimeoutMillis)
  'is not queryable', // a client whose connection already failed
];

const SQLITE_BUSY = 5;

/**
 * The database is unreachable or the connection was lost, so the request may succeed when retried
 * shortly (503 with Retry-After), as opposed to a bug (500): socket errors, node-postgres
 * connection and pool-checkout failures, SQLSTATE class 08 (connection exception), 57P01-57P03
 * (server shutting down or starting up), 53300 (too many connections), and SQLite SQLITE_BUSY
 * ("database is locked") after its busy timeout. Looks into AggregateError members (a refused
 * dual-stack connect) but not into `cause`: `fetch failed` caused by ECONNREFUSED is an HTTP
 * egress failure, not the database.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; errcode?: unknown; message?: unknown; statusCode?: unknown };
  // The client's own socket (Node's `aborted`, ECONNRESET with statusCode 400) is not the database.
  if (typeof e.statusCode === 'number' && e.statusCode < 500) return false;
  if (typeof e.code === 'string') {
    if (NETWORK_CODES.has(e.code)) return true;
    if (/^08[0-9A-Z]{3}$/.test(e.code) || /^57P0[123]$/.test(e.code) || e.code === '53300') return true;
  }
  // Extended result codes (SQLITE_BUSY_SNAPSHOT, ...) keep the primary code in the low byte.
  if (typeof e.errcode === 'number' && (e.errcode & 0xff) === SQLITE_BUSY) return true;
  if (typeof e.message === 'string') {
    const message = e.message;
    if (message === 'database is locked' || PG_CONNECTION_MESSAGES.some((m) => message.includes(m))) return true;
  }
  return (
    error instanceof AggregateError &&
    error.errors.some((member: unknown) => member !== error && isDatabaseUnavailable(member))
  );
}
