// Operator webhooks (contract §11): an endpoint of the operator belongs to no organization, so
// webhooks.organization_id and webhook_deliveries.organization_id may be null (the foreign key to
// organizations stays for the rest). One table, queue and deliverer serve both kinds. An operator
// endpoint's client_id is unique among operator endpoints (the per-organization index does not
// compare nulls).
import { sql, type Kysely } from 'kysely';
import { isPostgres } from './dialect.ts';

const TABLES = ['webhooks', 'webhook_deliveries'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    for (const table of TABLES)
      await sql`alter table ${sql.table(table)} alter column organization_id drop not null`.execute(db);
  } else {
    // SQLite cannot drop a NOT NULL: each table is rebuilt from its own definition without it
    // (https://sqlite.org/lang_altertable.html#otheralter). Migrations run outside a transaction
    // on SQLite, so foreign keys can be turned off around the rebuild.
    await sql`pragma foreign_keys = off`.execute(db);
    try {
      await sql`begin immediate`.execute(db);
      try {
        for (const table of TABLES) await rebuildWithoutNotNull(db, table, 'organization_id');
        const broken = await sql`pragma foreign_key_check`.execute(db);
        if (broken.rows.length > 0)
          throw new Error(`0020: foreign keys broken by the rebuild: ${JSON.stringify(broken.rows)}`);
        await sql`commit`.execute(db);
      } catch (error) {
        await sql`rollback`.execute(db);
        throw error;
      }
    } finally {
      await sql`pragma foreign_keys = on`.execute(db);
    }
  }
  await db.schema
    .createIndex('webhooks_operator_client_id')
    .unique()
    .on('webhooks')
    .column('client_id')
    .where(sql.ref('organization_id'), 'is', null)
    .execute();
}

/** Copies `table` into a new table whose `column` takes null, then swaps it in with its indexes. */
async function rebuildWithoutNotNull(db: Kysely<any>, table: string, column: string): Promise<void> {
  const master = await sql<{ type: string; name: string; sql: string | null }>`
    select type, name, sql from sqlite_master where tbl_name = ${table}`.execute(db);
  const create = master.rows.find((r) => r.type === 'table')?.sql;
  const definition = `"${column}" text not null`;
  if (!create?.includes(definition)) throw new Error(`0020: ${table} has no ${definition}`);
  const indexes = master.rows.filter((r) => r.type === 'index' && r.sql).map((r) => r.sql as string);
  const rebuilt = `${table}_0020`;
  const body = create.slice(create.indexOf('(')).replace(definition, `"${column}" text`);
  await sql.raw(`create table "${rebuilt}" ${body}`).execute(db);
  await sql.raw(`insert into "${rebuilt}" select * from "${table}"`).execute(db);
  await sql.raw(`drop table "${table}"`).execute(db);
  await sql.raw(`alter table "${rebuilt}" rename to "${table}"`).execute(db);
  for (const index of indexes) await sql.raw(index).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhooks_operator_client_id').execute();
}
