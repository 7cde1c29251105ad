// A test seam: a dialect whose connections show every statement to an observer before it runs
// (a transaction's begin and commit too), which may throw to fail it as a broken connection would.
// Tests count a path's statements, read their query plans, or fail the work after a commit.
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from 'kysely';

export interface Statement {
  sql: string;
  parameters: readonly unknown[];
}

/** Sees each statement before it runs; throwing fails it (the caller gets the error). */
export type StatementObserver = (statement: Statement) => void;

function observedConnection(connection: DatabaseConnection, observe: StatementObserver): DatabaseConnection {
  return new Proxy(connection, {
    get(target, name) {
      if (name === 'executeQuery')
        return <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
          observe({ sql: query.sql, parameters: query.parameters });
          return target.executeQuery<R>(query);
        };
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function observedDriver(driver: Driver, observe: StatementObserver): Driver {
  // The driver's own release gets back the connection it handed out; begin, commit, rollback and
  // savepoints get the observed one, so their statements are seen too.
  const originals = new WeakMap<DatabaseConnection, DatabaseConnection>();
  return {
    init: () => driver.init(),
    async acquireConnection() {
      const connection = await driver.acquireConnection();
      const observed = observedConnection(connection, observe);
      originals.set(observed, connection);
      return observed;
    },
    beginTransaction: (connection, settings) => driver.beginTransaction(connection, settings),
    commitTransaction: (connection) => driver.commitTransaction(connection),
    rollbackTransaction: (connection) => driver.rollbackTransaction(connection),
    ...(driver.savepoint && {
      savepoint: driver.savepoint.bind(driver),
      rollbackToSavepoint: driver.rollbackToSavepoint?.bind(driver),
      releaseSavepoint: driver.releaseSavepoint?.bind(driver),
    }),
    releaseConnection: (connection) => driver.releaseConnection(originals.get(connection) ?? connection),
    destroy: () => driver.destroy(),
  };
}

/** `dialect`, its statements shown to `observe` first. */
export function observedDialect(dialect: Dialect, observe: StatementObserver): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => observedDriver(dialect.createDriver(), observe),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}
