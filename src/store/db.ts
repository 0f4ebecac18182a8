import type { Dialect } from './dialect.js'
import type { CompiledQuery, Sql } from './sql.js'

/** One result row, column name → value. */
export type Row = Record<string, unknown>

/**
 * A database handle. Outside a transaction reads may go to a reader connection and each write
 * is serialised with every transaction; inside `transaction` everything runs on the writer.
 */
export interface Db {
  readonly dialect: Dialect
  /** True for a handle bound to an open transaction. */
  readonly inTransaction: boolean
  /** Runs a query and returns every row. */
  all<T = Row>(query: Sql): Promise<T[]>
  /** Runs a query and returns its first row. */
  get<T = Row>(query: Sql): Promise<T | undefined>
  /** Runs a statement that returns no rows. */
  run(query: Sql): Promise<{ changes: number }>
  /**
   * Optional, on a transaction's handle: a write whose result nobody reads, run before the
   * transaction's next statement or its commit (PostgreSQL sends it in the same round trip as
   * that one); its failure fails that statement or the commit, and so the transaction. With
   * `mustWrite`, writing no row is such a failure, a `NoRowWritten`. Where it is absent,
   * `await run(query)` instead.
   */
  runLater?(query: Sql, options?: { mustWrite?: boolean }): void
  /**
   * Optional synchronous reads, for engines whose driver is synchronous underneath (SQLite): the
   * same as `all`/`get`, answered at once (a transaction's handle reads its own uncommitted
   * work). PocketBase-style `*.pb.js` scripts need them for their synchronous `$app` finds; an
   * engine without them (an asynchronous PostgreSQL driver) leaves them out, and callers fail
   * with a clear error.
   */
  allSync?<T = Row>(query: Sql): T[]
  getSync?<T = Row>(query: Sql): T | undefined
  /**
   * Runs `fn` inside one transaction; nested calls join the outer one. Transactions behave as
   * if serialised: an engine runs them one at a time (SQLite's writer) or side by side under
   * serializable isolation (PostgreSQL), where one that conflicts with another is rolled back
   * and `fn` run again from the start, so `fn` may run more than once (only the committed run's
   * `onCommit` callbacks run). Consecutive transactions may share one commit (group commit); the
   * promise settles only once this transaction's work is committed, or failed.
   */
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>
  /**
   * Inside a transaction: runs `fn` synchronously right after the commit succeeds, before any
   * later transaction starts, and lets no later transaction share this one's commit (for state
   * that must move together with the data, like the collection registry). `fn` must not throw.
   * Outside a transaction it runs at once.
   */
  onCommit(fn: () => void): void
  /** Checks a single read-only statement and describes its result columns without running it. */
  describe(query: Sql): Promise<QueryColumn[]>
  /** Forgets cached prepared statements (after DDL). */
  resetStatements(): void
  /**
   * A number that changes whenever committed data may have changed, in any table, by any
   * connection or process (SQLite: the reader's `PRAGMA data_version`): what a reader may key
   * cached answers by. Absent where the engine cannot tell cheaply, and on transactions.
   */
  dataVersion?(): number
  /**
   * Sets the read budget: how long one read may run, in milliseconds, before the engine stops it
   * and it fails as a `DbError` of kind `timeout` (see docs/security.md).
   */
  setReadBudget?(ms: number): void
  /**
   * On a transaction's handle: stops its read-only statements that run longer than `ms` (they
   * fail as `ReadTimeout`) until the transaction ends. The record service sets it for the rule
   * checks of a write, which run on the event loop where the engine is synchronous (SQLite).
   */
  limitReads?(ms: number): void
  /** A writer for bulk background writes off the event loop, when the engine offers one. */
  backgroundWriter?(): BackgroundWriter
  /** Closes every connection. */
  close(): Promise<void>
}

/** Runs batches of writes away from the event loop (a worker thread for SQLite). */
export interface BackgroundWriter {
  /** Runs the queries in one transaction; resolves once committed. */
  run(queries: readonly CompiledQuery[]): Promise<void>
  /**
   * Inserts rows into `table` in one transaction; resolves once committed. `lines` holds one row
   * per line as a UTF-8 JSON array of the values in `columns` order; its memory is handed over
   * (transferred to the worker): the caller must not use it afterwards.
   */
  insertLines(table: string, columns: readonly string[], lines: Uint8Array): Promise<void>
  close(): Promise<void>
}

/** A column of a query's result, as the engine describes it. */
export interface QueryColumn {
  name: string
  /** The source table and column when the column is a plain reference to one. */
  table: string | null
  column: string | null
  /** The declared type of the source column, if known. */
  declaredType: string | null
}

/** A write sent with `runLater(…, { mustWrite: true })` wrote no row. */
export class NoRowWritten extends Error {
  constructor(cause: unknown) {
    super('a write that had to write a row wrote none', { cause })
    this.name = 'NoRowWritten'
  }
}

/** A unique constraint violation, translated from the driver's error. */
export class UniqueViolation extends Error {
  constructor(
    readonly table: string,
    readonly columns: string[],
    cause: unknown,
  ) {
    super(`unique constraint failed on ${table}(${columns.join(', ')})`, { cause })
    this.name = 'UniqueViolation'
  }
}

/**
 * Any other driver failure, with the driver's message kept for logs and the SQL console.
 * `kind` is `'type'` when the engine refused to compare, convert or compute the values a query
 * was given (PostgreSQL's strict typing: `text_column >= bool_column`, a NUL in text), which
 * SQLite never does: the caller may then answer the client's filter as invalid, not fail.
 * `'timeout'`: the read ran past the read budget and was stopped (`Db.setReadBudget`);
 * `'busy'`: too many slow reads were already waiting, so this one was not started.
 */
export class DbError extends Error {
  constructor(
    message: string,
    cause: unknown,
    readonly kind: 'type' | 'timeout' | 'busy' | null = null,
  ) {
    super(message, { cause })
    this.name = 'DbError'
  }
}

/** A read the read budget stopped: a `DbError` of kind `timeout` that knows the budget. */
export class ReadTimeout extends DbError {
  constructor(
    readonly budgetMs: number,
    cause: unknown,
    message = `the read took longer than the read budget of ${budgetMs} ms and was stopped`,
  ) {
    super(message, cause, 'timeout')
    this.name = 'ReadTimeout'
  }
}
