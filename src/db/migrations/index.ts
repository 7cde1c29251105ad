// The one migration set, applied in key order on SQLite and PostgreSQL. Append only.
import type { Migration } from 'kysely';
import * as foundation from './0001_foundation.ts';

export const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
};
