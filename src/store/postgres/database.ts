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
import { DbError, UniqueViolation, type Db, type QueryColumn, type Row } from '../db.js'
import { noteReadBudget, translatePgError } from './errors.js'
import type { Sql } from '../sql.js'
import { beginThen } from './begin-then.js'

export { translatePgError, uniqueColumns } from './errors.js'
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

/** The connection an open transaction runs on, and what runs after its commit. */
interface TxState {
  client: pg.PoolClient
  committed: Array<() => void>
  /** Set once a statement failed for a conflict: the attempt is rolled back and run again. */
  conflict: boolean
  /** Set once `BEGIN` was sent (with the first statement): until then there is nothing to end. */
  begun: boolean
}

/** How every transaction starts. */
const BEGIN = 'BEGIN ISOLATION LEVEL SERIALIZABLE'

/** SQLSTATEs of a conflict with a concurrent transaction: a serialization failure, a deadlock. */
const CONFLICTS = new Set(['40001', '40P01'])

/** True for a driver error (raw or translated) that a conflict with another transaction caused. */
export function isConflict(err: unknown): boolean {
  const raw = err instanceof DbError || err instanceof UniqueViolation ? err.cause : err
  const code = (raw as { code?: unknown } | null)?.code
  return typeof code === 'string' && CONFLICTS.has(code)
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

/** A handle bound to one open transaction. */
class PgTx implements Db {
  readonly dialect = postgresDialect
  readonly inTransaction = true

  constructor(
    private readonly root: PgDb,
    private readonly state: TxState,
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

  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    return fn(this)
  }

  /**
   * Runs a statement of the transaction (the first one with `BEGIN`, in one round trip); a
   * conflict marks the attempt for a retry.
   */
  private async query<T>(query: Sql): Promise<pg.QueryResult<T & pg.QueryResultRow>> {
    const first = !this.state.begun
    this.state.begun = true
    try {
      return await this.root.query<T>(this.state.client, query, first ? BEGIN : undefined)
    } catch (err) {
      if (isConflict(err)) this.state.conflict = true
      throw err
    }
  }

  onCommit(fn: () => void): void {
    this.state.committed.push(fn)
  }

  async describe(query: Sql): Promise<QueryColumn[]> {
    if (!this.state.begun) {
      this.state.begun = true
      await this.state.client.query(BEGIN).catch((err: unknown) => {
        throw translatePgError(err)
      })
    }
    return describeOn(this.root, this.state.client, query)
  }

  resetStatements(): void {}

  close(): Promise<void> {
    return Promise.reject(new Error('cannot close a database from inside a transaction'))
  }
}

/** A PostgreSQL schema reached through a pool. */
export class PgDb implements Db {
  readonly dialect = postgresDialect
  readonly inTransaction = false
  readonly pool: pg.Pool
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
    this.gate = new TxGate(Math.max(1, (options.max ?? 10) - FREE_FOR_READS))
    // An idle connection the server dropped must not crash the process; the pool replaces it.
    this.pool.on('error', () => {})
  }

  /**
   * Runs a compiled fragment on `client` (or any pooled connection), errors translated; with
   * `begin`, sends that `BEGIN …` ahead of it in the same round trip (`begin-then.ts`).
   */
  async query<T>(
    client: pg.PoolClient | pg.Pool,
    query: Sql,
    begin?: string,
  ): Promise<pg.QueryResult<T & pg.QueryResultRow>> {
    const compiled = this.dialect.compile(query)
    if (begin) this.options.verbose?.(begin)
    this.options.verbose?.(compiled.sql)
    try {
      if (begin && client instanceof pg.Pool) throw new Error('BEGIN needs a connection of its own')
      return begin
        ? await beginThen<T & pg.QueryResultRow>(
            client as pg.PoolClient,
            begin,
            compiled.sql,
            compiled.params,
          )
        : await client.query<T & pg.QueryResultRow>(compiled.sql, compiled.params)
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
   * budget); a connection whose statement failed is closed, as `pool.query` does.
   */
  private async pooled<T>(query: Sql): Promise<pg.QueryResult<T & pg.QueryResultRow>> {
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
    const state: TxState = { client, committed: [], conflict: false, begun: false }
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
      // NB: `fn` sent no statement: there is no transaction on the server to end.
      if (!state.begun) {
        for (const cb of state.committed) cb()
        return { value }
      }
      let done: pg.QueryResult
      try {
        done = await client.query('COMMIT')
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

  resetStatements(): void {}

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
