// What each webhook attempt sent and got back, for the console's delivery page (issue 26 §4):
// the request headers (signature and timestamp differ per attempt; the body is the delivery's
// payload) and the first 4 KiB of the receiver's response body. Null on attempts made before.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_attempts').addColumn('request_headers', 'text').execute();
  await db.schema.alterTable('webhook_attempts').addColumn('response_body', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_attempts').dropColumn('response_body').execute();
  await db.schema.alterTable('webhook_attempts').dropColumn('request_headers').execute();
}
