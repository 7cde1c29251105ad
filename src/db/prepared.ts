// Statements on the hot paths (every send, every authenticated request) are built by Kysely once
// per dialect and then run with fresh values: the query builder and compiler cost tens of
// microseconds per statement, more than SQLite takes to run most of them.
import { CompiledQuery, type Compilable, type QueryResult } from 'kysely';
import type { Executor } from './schema.ts';

/** Stand-ins the builder receives instead of values: `${MARK}name${END}`, strings no caller sends. */
const MARK = '\u0000cellgate-param:';
const END = '\u0000';

type Slot = { param: string } | { value: unknown };

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
  const param = value.slice(MARK.length, -END.length);
  // A value computed from a stand-in (`${p.name}.suffix`) would be bound as a constant.
  if (!value.startsWith(MARK) || !value.endsWith(END) || param.includes(END)) {
    throw new Error(`prepared: a value was derived from a parameter; bind parameters as they are (${JSON.stringify(value)})`);
  }
  return { param };
}

/**
 * `build` receives stand-ins for `params` (typed as the real values) and returns a query; the
 * query is compiled once per dialect. Each parameter must reach the SQL as one bound value, as
 * given: no arrays for `in`, no values the builder inspects (such as undefined to skip a column),
 * no values computed from a parameter (these throw when the query is built).
 */
export function prepared<Params extends object, Row>(build: (ex: Executor, params: Params) => Compilable<Row>): PreparedQuery<Params, Row> {
  const plans = new Map<unknown, Plan>();

  const plan = (ex: Executor): Plan => {
    const dialect = ex.getExecutor().adapter.constructor;
    let found = plans.get(dialect);
    if (!found) {
      const standIns = new Proxy({}, { get: (_target, name) => `${MARK}${String(name)}${END}` }) as Params;
      const compiled = build(ex, standIns).compile();
      found = { sql: compiled.sql, slots: compiled.parameters.map(slotOf) };
      plans.set(dialect, found);
    }
    return found;
  };

  const execute = async (ex: Executor, params: Params) => {
    const { sql, slots } = plan(ex);
    const values = slots.map((slot) => ('param' in slot ? (params as Record<string, unknown>)[slot.param] : slot.value));
    return ex.executeQuery<Row>(CompiledQuery.raw(sql, values));
  };

  return {
    execute,
    first: async (ex, params) => (await execute(ex, params)).rows[0],
  };
}
