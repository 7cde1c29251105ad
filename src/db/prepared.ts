// Statements on the hot paths (every send, every authenticated request) are built by Kysely once
// per dialect and then run with fresh values: the query builder and compiler cost tens of
// microseconds per statement, more than SQLite takes to run most of them.
import { CompiledQuery, type Compilable, type QueryResult } from 'kysely';
import type { Executor } from './schema.ts';

/** Stand-ins the builder receives instead of values: `${MARK}row:name${END}`, strings no caller sends. */
const MARK = '\u0000cellgate-param:';
const END = '\u0000';

type Slot = { row: number; param: string } | { value: unknown };

/**
 * The SQL of the statements compiled here (a bounded set: one per statement, dialect and row or
 * list count), each with a name: PostgreSQL prepares a named statement once per connection and
 * then skips its parse and analysis, and after five runs may keep one generic plan for all values
 * (database.ts names them). A statement whose best plan depends on its values (a range over a
 * phone's claims or a cell's queue) is left unnamed (`planEachRun`): planned for its values each
 * run. The hot path's statements run many times a second.
 */
const names = new Map<string, string>();

/** Marks `sql` as one of the hot path's statements, run under a name (see `names`). */
export function nameStatement(sql: string): void {
  if (!names.has(sql)) names.set(sql, `cellgate_${names.size}`);
}

/** The name of a hot path's statement, if `sql` is one. */
export const statementName = (sql: string): string | undefined => names.get(sql);

interface Plan {
  sql: string;
  slots: Slot[];
}

export interface PreparedQuery<Params extends object, Row> {
  execute(ex: Executor, params: Params): Promise<QueryResult<Row>>;
  /** The first row, if any. */
  first(ex: Executor, params: Params): Promise<Row | undefined>;
}

function slotOf(value: unknown): Slot {
  if (typeof value !== 'string' || !value.includes(MARK)) return { value };
  const name = value.slice(MARK.length, -END.length);
  const colon = name.indexOf(':');
  // A value computed from a stand-in (`${p.name}.suffix`) would be bound as a constant.
  if (!value.startsWith(MARK) || !value.endsWith(END) || name.includes(END) || colon < 0) {
    throw new Error(
      `prepared: a value was derived from a parameter; bind parameters as they are (${JSON.stringify(value)})`,
    );
  }
  return { row: Number(name.slice(0, colon)), param: name.slice(colon + 1) };
}

/** Stand-ins for the parameters of row `row`: every property reads as its own marker. */
function standIns<Params extends object>(row: number): Params {
  return new Proxy({}, { get: (_target, name) => `${MARK}${row}:${String(name)}${END}` }) as Params;
}

/** The SQL is the same for every database of a dialect. */
const dialectOf = (ex: Executor) => ex.getExecutor().adapter.constructor;

/**
 * As prepared, for statements over many rows (multi-row inserts): `build` receives one stand-in
 * per row, and the SQL is compiled once per dialect and row count.
 */
/** How a prepared statement runs on PostgreSQL: `planEachRun` leaves it unnamed (see `names`). */
export interface PreparedOptions {
  planEachRun?: boolean;
}

export function preparedRows<Params extends object, Row>(
  build: (ex: Executor, rows: Params[]) => Compilable<Row>,
  options: PreparedOptions = {},
) {
  const plans = new Map<unknown, Map<number, Plan>>();
  const planFor = (ex: Executor, size: number): Plan => {
    const dialect = dialectOf(ex);
    let bySize = plans.get(dialect);
    if (!bySize) plans.set(dialect, (bySize = new Map()));
    let plan = bySize.get(size);
    if (!plan) {
      const compiled = build(
        ex,
        Array.from({ length: size }, (_row, i) => standIns<Params>(i)),
      ).compile();
      bySize.set(size, (plan = { sql: compiled.sql, slots: compiled.parameters.map(slotOf) }));
      if (!options.planEachRun) nameStatement(compiled.sql);
    }
    return plan;
  };
  return async (ex: Executor, rows: readonly Params[]): Promise<QueryResult<Row>> => {
    const { sql, slots } = planFor(ex, rows.length);
    const values = slots.map((slot) =>
      'param' in slot ? (rows[slot.row] as Record<string, unknown>)[slot.param] : slot.value,
    );
    return ex.executeQuery<Row>(CompiledQuery.raw(sql, values));
  };
}

/** Lists longer than this are compiled on every run: caching every length would grow without bound. */
const MAX_CACHED_LIST = 64;

/**
 * As prepared, for statements over lists of values (`in` lists, whose SQL has one placeholder per
 * value): `build` receives one stand-in per value of each list, and the SQL is compiled once per
 * dialect and list lengths (up to MAX_CACHED_LIST values a list; longer lists are compiled each run).
 * The lists must not be empty (`in ()` is not SQL): callers skip the statement instead.
 */
export function preparedLists<Lists extends Record<string, readonly unknown[]>, Row>(
  build: (ex: Executor, lists: Lists) => Compilable<Row>,
) {
  const plans = new Map<unknown, Map<string, Plan>>();
  const compile = (ex: Executor, lists: Lists): Plan => {
    const standIn = Object.fromEntries(
      Object.entries(lists).map(([name, list]) => [
        name,
        Array.from({ length: list.length }, (_value, i) => `${MARK}${i}:${name}${END}`),
      ]),
    );
    const compiled = build(ex, standIn as unknown as Lists).compile();
    return { sql: compiled.sql, slots: compiled.parameters.map(slotOf) };
  };
  const planFor = (ex: Executor, lists: Lists): Plan => {
    let key = '';
    for (const name in lists) {
      const length = lists[name].length;
      if (length > MAX_CACHED_LIST) return compile(ex, lists);
      key += `${name}:${length},`;
    }
    const dialect = dialectOf(ex);
    let byKey = plans.get(dialect);
    if (!byKey) plans.set(dialect, (byKey = new Map()));
    let plan = byKey.get(key);
    if (!plan) {
      byKey.set(key, (plan = compile(ex, lists)));
      nameStatement(plan.sql);
    }
    return plan;
  };
  return async (ex: Executor, lists: Lists): Promise<QueryResult<Row>> => {
    const { sql, slots } = planFor(ex, lists);
    const values = slots.map((slot) => ('param' in slot ? lists[slot.param][slot.row] : slot.value));
    return ex.executeQuery<Row>(CompiledQuery.raw(sql, values));
  };
}

/**
 * `build` receives stand-ins for `params` (typed as the real values) and returns a query; the
 * query is compiled once per dialect. Each parameter must reach the SQL as one bound value, as
 * given: no arrays for `in`, no values the builder inspects (such as undefined to skip a column),
 * no values computed from a parameter (these throw when the query is built).
 */
export function prepared<Params extends object, Row>(
  build: (ex: Executor, params: Params) => Compilable<Row>,
  options: PreparedOptions = {},
): PreparedQuery<Params, Row> {
  const one = preparedRows<Params, Row>((ex, [params]) => build(ex, params), options);
  const execute = (ex: Executor, params: Params) => one(ex, [params]);
  return {
    execute,
    first: async (ex, params) => (await execute(ex, params)).rows[0],
  };
}
