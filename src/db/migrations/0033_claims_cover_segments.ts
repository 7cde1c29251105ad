// A phone's pace (messages/pace.ts) sums the segments of its claims in the last minute and day, on
// every claim and in every send batch. With the segments in the claims index those sums read the
// index alone, never a message row: a day of claims (up to the phone's daily limit) costs index
// entries, not one table lookup each.
import { sql, type Kysely } from 'kysely';

const claimsIndex = (db: Kysely<any>, columns: string[]) =>
  db.schema
    .createIndex('messages_device_claims')
    .on('messages')
    .columns(columns)
    .where(sql.ref('claimed_at'), 'is not', null)
    .execute();

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('messages_device_claims').execute();
  await claimsIndex(db, ['device_id', 'claimed_at', 'segments']);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('messages_device_claims').execute();
  await claimsIndex(db, ['device_id', 'claimed_at']);
}
