// Database error classification shared by repositories of both dialects.

/** A unique constraint failed (SQLite or PostgreSQL). */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown; errcode?: unknown; message?: unknown };
  return e?.code === '23505' || e?.errcode === 2067 || (typeof e?.message === 'string' && e.message.includes('UNIQUE constraint failed'));
}
