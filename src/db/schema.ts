// The database as Kysely sees it: each module declares its own tables beside its repository.
import type { FoundationTables } from '../modules/organizations/tables.ts';
import type { IdempotencyTables } from '../http/idempotency-tables.ts';

export interface DB extends FoundationTables, IdempotencyTables {}
