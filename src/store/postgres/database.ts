/**
 * A PostgreSQL database behind the `Db` contract: a `pg` pool whose connections all use one
 * schema (`search_path`), transactions on a connection of their own.
 *
 * Semantics kept from the SQLite store: the transactions of one process never interleave (a
 * first-come-first-served lock, so the read-check-write steps of the record service see what
 * the previous transaction wrote), nested calls join the outer transaction, `onCommit`
 * callbacks run right after `COMMIT` and before the next transaction starts, and the driver's
 * unique violations become `UniqueViolation`. Values come back as SQLite's do where the app
 * reads them raw: JSON as its text, 64-bit integers and NUMERIC as JS numbers.
 */
import pg from 'pg'
import { Mutex } from 'async-mutex'
import { DbError, UniqueViolation, type Db, type QueryColumn, type Row } from '../db.js'
import type { Sql } from '../sql.js'
import { postgresDialect } from './postgres-dialect.js'

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
}

/**
 * SQLSTATEs of values a query cannot take: every data exception (class 22: invalid text for a
 * type, out of range, a bad date, a NUL in text, a negative square root…), no operator or
 * function for the operand types, mismatched types.
 */
const typeErrors = (code: string): boolean =>
  code.startsWith('22') || code === '42883' || code === '42804' || code === '42725'

/** Translates a driver error: unique violations by their columns, the rest as `DbError`. */
export function translatePgError(err: unknown): Error {
  if (err instanceof UniqueViolation || err instanceof DbError) return err
  const e = err as { code?: string; table?: string; detail?: string; message?: string }
  if (e && e.code === '23505') {
    return new UniqueViolation(e.table ?? '', uniqueColumns(e.detail ?? ''), err)
  }
  const message = e && typeof e.message === 'string' ? e.message : String(err)
  return new DbError(message, err, typeErrors(e?.code ?? '') ? 'type' : null)
}

/**
 * The column names of a unique violation's detail: `Key (email)=(a@b.c) already exists.` or,
 * for an expression index, `Key (lower(email::text))=(…)`; casts, calls and quotes are peeled.
 */
export function uniqueColumns(detail: string): string[] {
  const m = /^Key \((.*)\)=\(/s.exec(detail)
  if (!m) return []
  const names = new Set<string>()
  for (const found of m[1]!.matchAll(/"((?:[^"]|"")+)"|\b([A-Za-z_][A-Za-z0-9_]*)\b(?!\s*\()/g)) {
    const name = found[1] !== undefined ? found[1].replaceAll('""', '"') : found[2]!
    if (found[2] !== undefined && /^(text|varchar|jsonb?|integer|bigint|numeric)$/i.test(name)) {
      continue
    }
    names.add(name)
  }
  return [...names]
}

/** A handle bound to one open transaction. */
class PgTx implements Db {
  readonly dialect = postgresDialect
  readonly inTransaction = true

  constructor(
    private readonly root: PgDb,
    private readonly state: TxState,
  ) {}

  all<T = Row>(query: Sql): Promise<T[]> {
    return this.root.query<T>(this.state.client, query).then((r) => r.rows)
  }

  get<T = Row>(query: Sql): Promise<T | undefined> {
    return this.root.query<T>(this.state.client, query).then((r) => r.rows[0])
  }

  run(query: Sql): Promise<{ changes: number }> {
    return this.root.query(this.state.client, query).then((r) => ({ changes: r.rowCount ?? 0 }))
  }

  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    return fn(this)
  }

  onCommit(fn: () => void): void {
    this.state.committed.push(fn)
  }

  describe(query: Sql): Promise<QueryColumn[]> {
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
  private readonly lock = new Mutex()

  constructor(readonly options: PgDbOptions) {
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.max ?? 10,
      types: typeParsers,
      options: `-c search_path=${quoteSchema(options.schema)}`,
    })
    // An idle connection the server dropped must not crash the process; the pool replaces it.
    this.pool.on('error', () => {})
  }

  /** Runs a compiled fragment on `client` (or any pooled connection), errors translated. */
  async query<T>(
    client: pg.PoolClient | pg.Pool,
    query: Sql,
  ): Promise<pg.QueryResult<T & pg.QueryResultRow>> {
    const compiled = this.dialect.compile(query)
    this.options.verbose?.(compiled.sql)
    try {
      return await client.query<T & pg.QueryResultRow>(compiled.sql, compiled.params)
    } catch (err) {
      throw translatePgError(err)
    }
  }

  all<T = Row>(query: Sql): Promise<T[]> {
    return this.query<T>(this.pool, query).then((r) => r.rows)
  }

  get<T = Row>(query: Sql): Promise<T | undefined> {
    return this.query<T>(this.pool, query).then((r) => r.rows[0])
  }

  run(query: Sql): Promise<{ changes: number }> {
    return this.query(this.pool, query).then((r) => ({ changes: r.rowCount ?? 0 }))
  }

  onCommit(fn: () => void): void {
    fn()
  }

  async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    return this.lock.runExclusive(async () => {
      const client = await this.connect()
      const state: TxState = { client, committed: [] }
      let broken = false
      try {
        await client.query('BEGIN')
        let result: T
        try {
          result = await fn(new PgTx(this, state))
        } catch (err) {
          await client.query('ROLLBACK').catch(() => (broken = true))
          throw err
        }
        try {
          await client.query('COMMIT')
        } catch (err) {
          await client.query('ROLLBACK').catch(() => (broken = true))
          throw translatePgError(err)
        }
        for (const cb of state.committed) cb()
        return result
      } finally {
        client.release(broken)
      }
    })
  }

  /**
   * Runs `fn` while holding this process's transaction lock, so no transaction of this process
   * runs meanwhile (the SQL console's writes, DDL that must not interleave).
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.lock.runExclusive(fn)
  }

  /** A pooled connection, errors translated; release it. */
  async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect()
    } catch (err) {
      throw translatePgError(err)
    }
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
    await this.lock.waitForUnlock()
    await this.pool.end()
  }
}

/** Quotes a schema name for `search_path`. */
export function quoteSchema(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`invalid schema name ${name}`)
  return `"${name}"`
}

/**
 * Describes a query's result columns without running it: planned inside a read-only
 * transaction with `LIMIT 0`, the columns' source tables and declared types read from the
 * catalog. Rolls back, so nothing it might do stays.
 */
async function describeOn(db: PgDb, client: pg.PoolClient, query: Sql): Promise<QueryColumn[]> {
  const compiled = db.dialect.compile(query)
  const inner = compiled.sql.trim().replace(/;\s*$/, '')
  const savepoint = await client
    .query('SAVEPOINT svc_describe')
    .then(() => true)
    .catch(() => false)
  if (!savepoint) await client.query('BEGIN READ ONLY')
  try {
    const r = await client.query({
      text: `SELECT * FROM (${inner}) AS svc_described LIMIT 0`,
      values: compiled.params,
    })
    const out: QueryColumn[] = []
    for (const f of r.fields) {
      let table: string | null = null
      let column: string | null = null
      // NB: as SQLite's declared type, only a plain column of a table has one: an expression's
      // (a literal, a function) is null, so views type it as PocketBase does.
      let declaredType: string | null = null
      if (f.tableID) {
        const src = await client.query<{ relname: string; attname: string; type: string }>(
          `SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) AS type
             FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
            WHERE a.attrelid = $1 AND a.attnum = $2`,
          [f.tableID, f.columnID],
        )
        const s = src.rows[0]
        if (s) {
          table = s.relname
          column = s.attname
          declaredType = s.type
        }
      }
      out.push({ name: f.name, table, column, declaredType })
    }
    return out
  } catch (err) {
    throw translatePgError(err)
  } finally {
    if (savepoint) await client.query('ROLLBACK TO SAVEPOINT svc_describe').catch(() => {})
    else await client.query('ROLLBACK').catch(() => {})
  }
}
