import Database from 'better-sqlite3'
import { Mutex } from 'async-mutex'
import {
  DbError,
  UniqueViolation,
  type BackgroundWriter,
  type Db,
  type QueryColumn,
  type Row,
} from '../db.js'
import { SqliteBackgroundWriter } from './background-writer.js'
import type { Sql } from '../sql.js'
import { sqliteDialect } from './sqlite-dialect.js'

type Connection = Database.Database
type Statement = Database.Statement

const STATEMENT_CACHE_SIZE = 500

/** Options of an SQLite database file. */
export interface SqliteOptions {
  /** Milliseconds a connection waits for a lock before failing. */
  busyTimeout?: number
}

/** Opens one connection with the pragmas svcbase relies on. */
function openConnection(file: string, busyTimeout: number, readonly: boolean): Connection {
  const conn = new Database(file)
  conn.pragma(`busy_timeout = ${busyTimeout}`)
  conn.pragma('journal_mode = WAL')
  conn.pragma('synchronous = NORMAL')
  conn.pragma('foreign_keys = ON')
  conn.pragma('temp_store = MEMORY')
  conn.pragma('cache_size = -16000')
  if (readonly) conn.pragma('query_only = ON')
  return conn
}

/** A connection with its own prepared-statement cache (insertion-ordered, so LRU-ish). */
class CachedConnection {
  private cache = new Map<string, Statement>()

  constructor(readonly conn: Connection) {}

  prepare(text: string): Statement {
    let stmt = this.cache.get(text)
    if (stmt) {
      this.cache.delete(text)
      this.cache.set(text, stmt)
      return stmt
    }
    stmt = this.conn.prepare(text)
    this.cache.set(text, stmt)
    if (this.cache.size > STATEMENT_CACHE_SIZE) {
      const oldest = this.cache.keys().next().value
      if (oldest !== undefined) this.cache.delete(oldest)
    }
    return stmt
  }

  reset(): void {
    this.cache.clear()
  }
}

/** Translates a driver error into the store's error types. */
export function translateSqliteError(err: unknown): Error {
  if (err instanceof Database.SqliteError) {
    if (err.code === 'SQLITE_CONSTRAINT_UNIQUE' || err.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
      // "UNIQUE constraint failed: posts.title, posts.slug"
      const list = err.message.split(':')[1] ?? ''
      const cols = list.split(',').map((c) => c.trim())
      const table = cols[0]?.split('.')[0] ?? ''
      return new UniqueViolation(
        table,
        cols.map((c) => c.split('.').slice(1).join('.')),
        err,
      )
    }
    return new DbError(err.message, err)
  }
  return err instanceof Error ? err : new Error(String(err))
}

/** Runs a compiled statement on one connection. */
function exec(conn: CachedConnection, query: Sql, mode: 'all' | 'get' | 'run'): unknown {
  const { sql, params } = sqliteDialect.compile(query)
  try {
    const stmt = conn.prepare(sql)
    if (mode === 'run') {
      if (stmt.reader) {
        stmt.all(...params)
        return { changes: 0 }
      }
      return { changes: stmt.run(...params).changes }
    }
    if (!stmt.reader) {
      stmt.run(...params)
      return mode === 'all' ? [] : undefined
    }
    return mode === 'all' ? stmt.all(...params) : stmt.get(...params)
  } catch (err) {
    throw translateSqliteError(err)
  }
}

/** Prepares a statement and describes its columns; fails unless it is one read-only statement. */
function describe(conn: CachedConnection, query: Sql): QueryColumn[] {
  const { sql } = sqliteDialect.compile(query)
  try {
    const stmt = conn.conn.prepare(sql)
    if (!stmt.reader) throw new DbError('the statement does not return rows', null)
    return stmt.columns().map((c) => ({
      name: c.name,
      table: c.table,
      column: c.column,
      declaredType: c.type,
    }))
  } catch (err) {
    throw translateSqliteError(err)
  }
}

/** The handle given to code inside a transaction: everything on the writer. */
class SqliteTx implements Db {
  readonly dialect = sqliteDialect
  readonly inTransaction = true

  constructor(
    private readonly writer: CachedConnection,
    private readonly root: SqliteDb,
  ) {}

  async all<T = Row>(query: Sql): Promise<T[]> {
    return exec(this.writer, query, 'all') as T[]
  }
  async get<T = Row>(query: Sql): Promise<T | undefined> {
    return exec(this.writer, query, 'get') as T | undefined
  }
  async run(query: Sql): Promise<{ changes: number }> {
    return exec(this.writer, query, 'run') as { changes: number }
  }
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    return fn(this)
  }
  async describe(query: Sql): Promise<QueryColumn[]> {
    return describe(this.writer, query)
  }
  resetStatements(): void {
    this.root.resetStatements()
  }
  close(): Promise<void> {
    return Promise.reject(new Error('cannot close a database from inside a transaction'))
  }
}

/**
 * An SQLite database file in WAL mode: one writer connection whose use is serialised by an async
 * mutex (a transaction holds it across awaits, so two requests never interleave inside one), and
 * one reader connection for reads outside a transaction.
 */
export class SqliteDb implements Db {
  readonly dialect = sqliteDialect
  readonly inTransaction = false
  private readonly writer: CachedConnection
  private readonly reader: CachedConnection
  private readonly mutex = new Mutex()
  private readonly workers: SqliteBackgroundWriter[] = []

  constructor(
    readonly file: string,
    options: SqliteOptions = {},
  ) {
    const busy = options.busyTimeout ?? 10_000
    this.writer = new CachedConnection(openConnection(file, busy, false))
    this.reader = new CachedConnection(openConnection(file, busy, true))
  }

  async all<T = Row>(query: Sql): Promise<T[]> {
    return exec(this.reader, query, 'all') as T[]
  }

  async get<T = Row>(query: Sql): Promise<T | undefined> {
    return exec(this.reader, query, 'get') as T | undefined
  }

  run(query: Sql): Promise<{ changes: number }> {
    return this.mutex.runExclusive(() => exec(this.writer, query, 'run') as { changes: number })
  }

  async describe(query: Sql): Promise<QueryColumn[]> {
    return describe(this.reader, query)
  }

  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    return this.mutex.runExclusive(async () => {
      const conn = this.writer.conn
      this.writer.prepare('BEGIN IMMEDIATE').run()
      try {
        const result = await fn(new SqliteTx(this.writer, this))
        this.writer.prepare('COMMIT').run()
        return result
      } catch (err) {
        if (conn.inTransaction) this.writer.prepare('ROLLBACK').run()
        throw err
      }
    })
  }

  resetStatements(): void {
    this.writer.reset()
    this.reader.reset()
  }

  /** A worker-thread writer on the same file, closed with this database. */
  backgroundWriter(): BackgroundWriter {
    const writer = new SqliteBackgroundWriter(this.file)
    this.workers.push(writer)
    return writer
  }

  /** Runs trusted SQL text with several statements (migrations). */
  execScript(text: string): Promise<void> {
    return this.mutex.runExclusive(() => {
      this.writer.conn.exec(text)
    })
  }

  /** Writes a consistent copy of the database to `target` (online backup). */
  async backup(target: string): Promise<void> {
    await this.writer.conn.backup(target)
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()))
    await this.mutex.waitForUnlock()
    this.reader.conn.close()
    this.writer.conn.close()
  }
}
