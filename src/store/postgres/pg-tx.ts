/**
 * The handle of one open PostgreSQL transaction (`PgDb.transaction`), and how its statements
 * reach the server: `BEGIN` goes with the first statement, and writes whose results nobody reads
 * (`runLater`) wait for the next statement or the `COMMIT` and go in the same round trip
 * (`pipeline.ts`), in the order they were asked for. A write waiting is sent before any later
 * statement of the transaction, so everything the transaction reads sees it; its failure fails
 * the statement it went with (or the commit), and so the transaction.
 */
import type pg from 'pg'
import { DbError, UniqueViolation, type Db, type QueryColumn, type Row } from '../db.js'
import type { CompiledQuery, Sql } from '../sql.js'
import { describeOn } from './describe.js'
import type { PgDb } from './database.js'
import { postgresDialect } from './postgres-dialect.js'
import { mustWriteSql, translatePgError } from './errors.js'
import { isStalePlan } from './prepared.js'

/** How every transaction starts. */
export const BEGIN: CompiledQuery = { sql: 'BEGIN ISOLATION LEVEL SERIALIZABLE', params: [] }

/** SQLSTATEs of a conflict with a concurrent transaction: a serialization failure, a deadlock. */
const CONFLICTS = new Set(['40001', '40P01'])

/**
 * True for a driver error (raw or translated) that a conflict with another transaction caused,
 * or a prepared statement whose plan a schema change made stale: the attempt runs again.
 */
export function isConflict(err: unknown): boolean {
  const raw = err instanceof DbError || err instanceof UniqueViolation ? err.cause : err
  const code = (raw as { code?: unknown } | null)?.code
  return (typeof code === 'string' && CONFLICTS.has(code)) || isStalePlan(raw)
}

/** The connection an open transaction runs on, and what runs after its commit. */
export interface TxState {
  client: pg.PoolClient
  committed: Array<() => void>
  /** Set once a statement failed for a conflict: the attempt is rolled back and run again. */
  conflict: boolean
  /** Set once `BEGIN` was sent (with the first statement): until then there is nothing to end. */
  begun: boolean
  /** Writes asked for with `runLater`, not sent yet. */
  later: CompiledQuery[]
}

/** A new transaction's state on `client`. */
export const txState = (client: pg.PoolClient): TxState => ({
  client,
  committed: [],
  conflict: false,
  begun: false,
  later: [],
})

/**
 * The statements to send ahead of the next one (`BEGIN` first when not sent yet, then the writes
 * waiting), taken: the caller sends them. With `always` false, nothing when no write waits
 * (`BEGIN` alone then waits for a statement).
 */
export function takeAhead(state: TxState, always = true): CompiledQuery[] {
  if (!always && state.later.length === 0) return []
  const ahead = state.begun ? state.later : [BEGIN, ...state.later]
  state.begun = true
  state.later = []
  return ahead
}

/** A handle bound to one open transaction. */
export class PgTx implements Db {
  readonly dialect = postgresDialect
  readonly inTransaction = true

  constructor(
    private readonly root: PgDb,
    readonly state: TxState,
  ) {}

  all<T = Row>(query: Sql): Promise<T[]> {
    return this.query<T>(query).then((r) => r.rows)
  }

  get<T = Row>(query: Sql): Promise<T | undefined> {
    return this.query<T>(query).then((r) => r.rows[0])
  }

  run(query: Sql): Promise<{ changes: number }> {
    return this.query(query).then((r) => ({ changes: r.rowCount ?? 0 }))
  }

  /**
   * Sends `query` with the transaction's next statement or its commit (see the file's comment);
   * with `mustWrite`, as a statement that fails when it wrote no row (`NoRowWritten`).
   */
  runLater(query: Sql, options: { mustWrite?: boolean } = {}): void {
    const compiled = this.dialect.compile(query)
    this.state.later.push(
      options.mustWrite ? { sql: mustWriteSql(compiled.sql), params: compiled.params } : compiled,
    )
  }

  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    return fn(this)
  }

  /**
   * Runs a statement of the transaction (with `BEGIN` and the writes waiting, in one round
   * trip); a conflict marks the attempt for a retry.
   */
  private async query<T>(query: Sql): Promise<pg.QueryResult<T & pg.QueryResultRow>> {
    try {
      return await this.root.query<T>(this.state.client, query, takeAhead(this.state))
    } catch (err) {
      if (isConflict(err)) this.state.conflict = true
      throw err
    }
  }

  onCommit(fn: () => void): void {
    this.state.committed.push(fn)
  }

  async describe(query: Sql): Promise<QueryColumn[]> {
    const ahead = takeAhead(this.state, !this.state.begun)
    for (const q of ahead) {
      await this.state.client.query(q.sql, q.params).catch((err: unknown) => {
        if (isConflict(err)) this.state.conflict = true
        throw translatePgError(err)
      })
    }
    return describeOn(this.root, this.state.client, query)
  }

  resetStatements(): void {
    this.root.resetStatements()
  }

  close(): Promise<void> {
    return Promise.reject(new Error('cannot close a database from inside a transaction'))
  }
}
