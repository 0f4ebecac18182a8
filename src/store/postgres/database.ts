/**
 * A PostgreSQL database behind the `Db` contract: a `pg` pool whose connections all use one
 * schema (`search_path`), transactions on a connection of their own.
 *
 * Transactions of one process run side by side (up to the pool's size less two, so reads made
 * meanwhile still find a connection), each `SERIALIZABLE`: PostgreSQL lets them commit only if
 * the result is the same as running them one after the other, so the read-check-write steps of
 * the record service (a rule reading other rows, the last-superuser guard) answer as they would
 * on SQLite's one writer. A transaction PostgreSQL refuses for a conflict with a concurrent one
 * (SQLSTATE 40001, or 40P01 for a deadlock) is rolled back and its function run again from the
 * start after a random pause of a few milliseconds, alone (no other transaction of this process
 * runs meanwhile, so it cannot conflict with them again; other processes on the same database
 * still can, hence the pause and up to `MAX_ATTEMPTS` attempts); only the attempt that commits
 * runs its `onCommit` callbacks. `exclusive(fn)` runs work alone too. Nested calls join the
 * outer transaction, `onCommit` callbacks run right after `COMMIT`, the driver's unique
 * violations become `UniqueViolation`, and a transaction whose function swallowed a failed
 * statement (PostgreSQL then rolls it all back) fails instead of claiming a commit. Values come
 * back as SQLite's do where the app reads them raw: JSON as its text, 64-bit integers and
 * NUMERIC as JS numbers.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { DbError, type Db, type QueryColumn, type Row } from '../db.js'
import { noteReadBudget, translatePgError } from './errors.js'
import type { CompiledQuery, Sql } from '../sql.js'
import { pipelined } from './pipeline.js'
import { isConflict, PgTx, takeAhead, txState } from './pg-tx.js'
import { isStalePlan, PreparedStatements } from './prepared.js'

export { translatePgError, uniqueColumns } from './errors.js'
export { isConflict } from './pg-tx.js'
import { describeOn } from './describe.js'
import { postgresDialect } from './postgres-dialect.js'
import { TxGate } from './tx-gate.js'

/** Options of a PostgreSQL database handle. */
export interface PgDbOptions {
  /** A `postgres://` connection string. */
  url: string
  /** The schema every connection works in (created by the store before the pool opens). */
  schema: string
  /** Connections in the pool. */
  max?: number
  /** Called with the text of every statement run (`serve --dev`). */
  verbose?: (sql: string) => void
  /**
   * Whether statements run again are named prepared statements (`prepared.ts`; default true):
   * off for a pooler between svcbase and PostgreSQL that cannot keep them.
   */
  prepared?: boolean
}

const { types } = pg

/** OIDs of the types read differently from `pg`'s defaults. */
const INT8 = 20
const NUMERIC = 1700
const JSON_OID = 114
const JSONB = 3802

/** Type parsers: numbers as numbers, JSON kept as text (the app parses it, as on SQLite). */
const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 || oid === NUMERIC) return (v: string) => Number(v)
    if (oid === JSON_OID || oid === JSONB) return (v: string) => v
    return types.getTypeParser(oid, format) as (v: string) => unknown
  },
}

/**
 * Attempts of a transaction that keeps conflicting: the first beside the others, the next ones
 * alone (they can then conflict only with other processes sharing the database).
 */
export const MAX_ATTEMPTS = 5

/**
 * The longest pause before the second attempt, in ms; it doubles for each later one. The pause
 * is random up to it: two processes whose transactions conflicted do not retry in step again.
 */
const RETRY_PAUSE_MS = 5

/** Connections of the pool kept free of transactions, for the reads made meanwhile. */
const FREE_FOR_READS = 2

/** How an attempt of a transaction ended when it did not throw. */
type Attempt<T> = { value: T } | { conflict: Error }

/** A PostgreSQL schema reached through a pool. */
export class PgDb implements Db {
  readonly dialect = postgresDialect
  readonly inTransaction = false
  readonly pool: pg.Pool
  /** The statements each pooled connection keeps prepared. */
  readonly prepared: PreparedStatements
  private readonly gate: TxGate

  constructor(readonly options: PgDbOptions) {
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.max ?? 10,
      types: typeParsers,
      // NB: no JIT: the app's queries are short, and compiling one (its estimates drawn from
      // unanalysed tables, SQLite's comparisons as subqueries) took seconds where running it
      // takes milliseconds.
      options: `-c search_path=${quoteSchema(options.schema)} -c jit=off`,
    })
    this.prepared = new PreparedStatements(options.prepared ?? true)
    this.gate = new TxGate(Math.max(1, (options.max ?? 10) - FREE_FOR_READS))
    // An idle connection the server dropped must not crash the process; the pool replaces it.
    this.pool.on('error', () => {})
  }

  /**
   * Runs a compiled fragment on `client`, errors translated; the statements `ahead` (a
   * transaction's `BEGIN`, its writes waiting) go in front of it in the same round trip
   * (`pipeline.ts`).
   */
  async query<T>(
    client: pg.PoolClient,
    query: Sql,
    ahead: readonly CompiledQuery[] = [],
  ): Promise<pg.QueryResult<T & pg.QueryResultRow>> {
    const compiled = this.dialect.compile(query)
    for (const q of ahead) this.options.verbose?.(q.sql)
    this.options.verbose?.(compiled.sql)
    try {
      return await pipelined<T & pg.QueryResultRow>(
        client,
        this.prepared,
        ahead,
        compiled.sql,
        compiled.params,
      )
    } catch (err) {
      noteReadBudget(err, this.readBudgetMs)
      throw translatePgError(err)
    }
  }

  /**
   * The read budget, as every pooled connection's `statement_timeout`: a connection whose value
   * differs gets a `SET` before its next use (`connect`), so a change applies from each
   * connection's next use. It bounds every statement, reads and writes alike (a long DDL
   * statement on a very large table needs a larger `reads.timeoutMs`). 0 until the settings are
   * read at start: the start's migrations run without one.
   */
  setReadBudget(ms: number): void {
    this.readBudgetMs = Math.trunc(ms)
  }
  private readBudgetMs = 0

  all<T = Row>(query: Sql): Promise<T[]> {
    return this.pooled<T>(query).then((r) => r.rows)
  }

  get<T = Row>(query: Sql): Promise<T | undefined> {
    return this.pooled<T>(query).then((r) => r.rows[0])
  }

  run(query: Sql): Promise<{ changes: number }> {
    return this.pooled(query).then((r) => ({ changes: r.rowCount ?? 0 }))
  }

  /**
   * One statement on a pooled connection (`pool.query`'s steps, through `connect` for the read
   * budget); a connection whose statement failed is closed, as `pool.query` does. A statement
   * whose prepared plan went stale (a table changed by another instance) runs once more.
   */
  private async pooled<T>(
    query: Sql,
    again = true,
  ): Promise<pg.QueryResult<T & pg.QueryResultRow>> {
    const client = await this.connect()
    // NB: a connection that ends while checked out also emits 'error' on the client, which
    // nobody else listens to then (`pool.query` listens the same way): the query fails with it.
    const dropped = () => undefined
    client.on('error', dropped)
    try {
      const result = await this.query<T>(client, query)
      client.release()
      return result
    } catch (err) {
      if (again && isStalePlan(err)) {
        client.release()
        return this.pooled<T>(query, false)
      }
      client.release(err instanceof Error ? err : true)
      throw err
    } finally {
      client.removeListener('error', dropped)
    }
  }

  onCommit(fn: () => void): void {
    fn()
  }

  /**
   * Runs `fn` in a `SERIALIZABLE` transaction beside the others of this process; after a
   * conflict, rolls back, pauses a random few milliseconds and runs `fn` again alone (see the
   * file's comment).
   */
  async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      if (attempt > 1) await sleep(Math.random() * RETRY_PAUSE_MS * 2 ** (attempt - 2))
      const release = await this.gate.acquire(attempt > 1)
      try {
        const outcome = await this.attempt(fn)
        if ('value' in outcome) return outcome.value
        if (attempt >= MAX_ATTEMPTS) throw outcome.conflict
      } finally {
        release()
      }
    }
  }

  /** One attempt of a transaction: its value, a conflict to retry, or its error thrown. */
  private async attempt<T>(fn: (tx: Db) => Promise<T>): Promise<Attempt<T>> {
    const client = await this.connect()
    const state = txState(client)
    let broken = false
    const rollback = async () => {
      if (!state.begun) return
      await client.query('ROLLBACK').then(
        () => undefined,
        () => {
          broken = true
        },
      )
    }
    try {
      let value: T
      try {
        value = await fn(new PgTx(this, state))
      } catch (err) {
        await rollback()
        if (state.conflict || isConflict(err)) return { conflict: translatePgError(err) }
        throw err
      }
      if (state.conflict) {
        await rollback()
        return { conflict: new DbError('the transaction conflicted with another one', null) }
      }
      // The writes still waiting go with the COMMIT (and BEGIN, when they are all there is).
      const ahead = takeAhead(state, false)
      // NB: `fn` sent no statement: there is no transaction on the server to end.
      if (!state.begun) {
        for (const cb of state.committed) cb()
        return { value }
      }
      let done: pg.QueryResult
      try {
        for (const q of ahead) this.options.verbose?.(q.sql)
        done = await pipelined(client, this.prepared, ahead, 'COMMIT', [])
      } catch (err) {
        await rollback()
        if (isConflict(err)) return { conflict: translatePgError(err) }
        throw translatePgError(err)
      }
      // NB: PostgreSQL answers COMMIT of a transaction a failed statement aborted with ROLLBACK.
      if (done.command === 'ROLLBACK') {
        throw new DbError(
          'the transaction was rolled back: one of its statements failed and the error was caught',
          null,
        )
      }
      for (const cb of state.committed) cb()
      return { value }
    } finally {
      client.release(broken)
    }
  }

  /**
   * Runs `fn` alone: no transaction of this process runs meanwhile (the SQL console's writes,
   * DDL that must not interleave).
   */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.gate.acquire(true)
    try {
      return await fn()
    } finally {
      release()
    }
  }

  /** A pooled connection, errors translated; release it. */
  async connect(): Promise<pg.PoolClient> {
    let client: pg.PoolClient & { svcStatementTimeout?: number }
    try {
      client = await this.pool.connect()
    } catch (err) {
      throw translatePgError(err)
    }
    const budget = this.readBudgetMs
    if ((client.svcStatementTimeout ?? 0) !== budget) {
      const dropped = () => undefined
      client.on('error', dropped)
      try {
        await client.query(`SET statement_timeout = ${budget}`)
        client.svcStatementTimeout = budget
      } catch (err) {
        client.release(err instanceof Error ? err : true)
        throw translatePgError(err)
      } finally {
        client.removeListener('error', dropped)
      }
    }
    return client
  }

  async describe(query: Sql): Promise<QueryColumn[]> {
    const client = await this.connect()
    try {
      return await describeOn(this, client, query)
    } finally {
      client.release()
    }
  }

  /** After a schema change: no connection runs a statement it prepared before it. */
  resetStatements(): void {
    this.prepared.reset()
  }

  async close(): Promise<void> {
    await this.gate.idle()
    await this.pool.end()
  }
}

/** Quotes a schema name for `search_path`. */
export function quoteSchema(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`invalid schema name ${name}`)
  return `"${name}"`
}
