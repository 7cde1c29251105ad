// A broadcast's send_now (contract §12): the worker queues its messages later, so the job keeps
// the flag for them: quiet hours do not hold a broadcast started with send_now.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('cycle_jobs')
    .addColumn('send_now', 'integer', (c) => c.notNull().defaultTo(sql`0`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('cycle_jobs').dropColumn('send_now').execute();
}
