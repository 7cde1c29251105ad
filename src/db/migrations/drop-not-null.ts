// Dropping a NOT NULL, on both databases: PostgreSQL alters the column; SQLite cannot, so each
// table is rebuilt from its own definition without it (https://sqlite.org/lang_altertable.html#otheralter).
// Migrations run outside a transaction on SQLite, so foreign keys can be turned off around the rebuild.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from './dialect.ts';

/** Lets each `table.column` (a text column) take null; `tag` names the migration in errors. */
export async function dropNotNull(
  db: Kysely<any>,
  columns: readonly { table: string; column: string }[],
  tag: string,
): Promise<void> {
  if (isPostgres(db)) {
    for (const { table, column } of columns)
      await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} drop not null`.execute(db);
    return;
  }
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await sql`begin immediate`.execute(db);
    try {
      for (const { table, column } of columns) await rebuildWithoutNotNull(db, table, column, tag);
      const broken = await sql`pragma foreign_key_check`.execute(db);
      if (broken.rows.length > 0)
        throw new Error(`${tag}: foreign keys broken by the rebuild: ${JSON.stringify(broken.rows)}`);
      await sql`commit`.execute(db);
    } catch (error) {
      await sql`rollback`.execute(db);
      throw error;
    }
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

/** Copies `table` into a new table whose `column` takes null, then swaps it in with its indexes. */
async function rebuildWithoutNotNull(db: Kysely<any>, table: string, column: string, tag: string): Promise<void> {
  const master = await sql<{ type: string; name: string; sql: string | null }>`
    select type, name, sql from sqlite_master where tbl_name = ${table}`.execute(db);
  const create = master.rows.find((r) => r.type === 'table')?.sql;
  const definition = `"${column}" text not null`;
  if (!create?.includes(definition)) throw new Error(`${tag}: ${table} has no ${definition}`);
  const indexes = master.rows.filter((r) => r.type === 'index' && r.sql).map((r) => r.sql as string);
  const rebuilt = `${table}_${tag}`;
  const body = create.slice(create.indexOf('(')).replace(definition, `"${column}" text`);
  await sql.raw(`create table "${rebuilt}" ${body}`).execute(db);
  await sql.raw(`insert into "${rebuilt}" select * from "${table}"`).execute(db);
  await sql.raw(`drop table "${table}"`).execute(db);
  await sql.raw(`alter table "${rebuilt}" rename to "${table}"`).execute(db);
  for (const index of indexes) await sql.raw(index).execute(db);
}
