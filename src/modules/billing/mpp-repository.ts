// The SQL of the MPP rail: the credentials accepted, each recorded once.
import type { Executor } from '../../db/schema.ts';
import type { MppCredentialsTable } from './tables.ts';

/** Records an accepted credential; false when its challenge or its proof was recorded before. */
export async function recordCredential(ex: Executor, row: MppCredentialsTable): Promise<boolean> {
  const result = await ex
    .insertInto('mpp_credentials')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}
