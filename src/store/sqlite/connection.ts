/**
 * One SQLite connection as the database uses it: opened with svcbase's pragmas, with a bounded
 * cache of prepared statements, driver errors translated, and the three ways of running a query.
 */
import Database from 'better-sqlite3'
import { DbError, UniqueViolation, type QueryColumn } from '../db.js'
import type { Sql } from '../sql.js'
import { registerAppendOnlyFunction } from './append-only.js'
import { loadBudget } from './budget-extension.js'
import { sqliteDialect } from './sqlite-dialect.js'

type Connection = Database.Database
type Statement = Database.Statement

const STATEMENT_CACHE_SIZE = 500

/** Options of an SQLite database file. */
export interface SqliteOptions {
  /** Milliseconds a connection waits for a lock before failing. */
  busyTimeout?: number
  /** Called with the text of every statement run on this file's connections (`serve --dev`). */
  verbose?: (sql: string) => void
}

/**
 * Opens one connection with the pragmas svcbase relies on. With `limitMs`, the `svc_budget`
 * extension stops any of its read-only statements that runs longer (0: the extension is loaded
 * with no limit, for `setLimit` to set one later).
 */
export function openConnection(
  file: string,
  busyTimeout: number,
  readonly: boolean,
  verbose?: (sql: string) => void,
  limitMs?: number,
): Connection {
  const conn = new Database(file, verbose ? { verbose: (sql) => verbose(String(sql)) } : {})
  conn.pragma(`busy_timeout = ${busyTimeout}`)
  conn.pragma('journal_mode = WAL')
  conn.pragma('synchronous = NORMAL')
  conn.pragma('foreign_keys = ON')
  conn.pragma('temp_store = MEMORY')
  conn.pragma('cache_size = -16000')
  if (readonly) conn.pragma('query_only = ON')
  registerAppendOnlyFunction(conn)
  if (limitMs !== undefined) loadBudget(conn, limitMs, true)
  return conn
}

/** True for a driver error (translated or not) of a statement the `svc_budget` limit stopped. */
export function isInterrupt(err: unknown): boolean {
  const e = err instanceof DbError ? err.cause : err
  return e instanceof Database.SqliteError && e.code === 'SQLITE_INTERRUPT'
}

/**
 * A connection with its own prepared-statement cache, evicting by "second chance": a hit only
 * marks its entry used (no reordering: the per-query delete-and-reinsert of an LRU cost ~1.5 µs
 * on every read); a full cache moves used entries to the back, unmarked, and drops the first
 * unused one.
 */
export class CachedConnection {
  private cache = new Map<string, { stmt: Statement; used: boolean }>()

  constructor(readonly conn: Connection) {}

  prepare(text: string): Statement {
    const hit = this.cache.get(text)
    if (hit) {
      hit.used = true
      return hit.stmt
    }
    const stmt = this.conn.prepare(text)
    this.cache.set(text, { stmt, used: false })
    while (this.cache.size > STATEMENT_CACHE_SIZE) {
      const [oldest, entry] = this.cache.entries().next().value!
      this.cache.delete(oldest)
      if (entry.used && oldest !== text) {
        entry.used = false
        this.cache.set(oldest, entry)
      }
    }
    return stmt
  }

  reset(): void {
    this.cache.clear()
  }

  /**
   * Sets the time limit of this connection's read-only statements (`svc_budget`), in
   * milliseconds, 0 for none; false when the extension is not loaded here.
   */
  setLimit(ms: number): boolean {
    if (!this.budgeted) return false
    this.prepare('SELECT svc_budget(?)').get(ms)
    return true
  }

  /** True when the connection has the `svc_budget` extension. */
  get budgeted(): boolean {
    if (this.hasBudget === undefined) {
      try {
        this.hasBudget =
          this.conn
            .prepare("SELECT 1 AS x FROM pragma_function_list WHERE name = 'svc_budget'")
            .get() !== undefined
      } catch {
        this.hasBudget = false
      }
    }
    return this.hasBudget
  }
  private hasBudget: boolean | undefined
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
export function exec(conn: CachedConnection, query: Sql, mode: 'all' | 'get' | 'run'): unknown {
  return execCompiled(conn, sqliteDialect.compile(query), mode)
}

/** `exec` of a statement already compiled. */
export function execCompiled(
  conn: CachedConnection,
  { sql, params }: { sql: string; params: unknown[] },
  mode: 'all' | 'get' | 'run',
): unknown {
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
export function describe(conn: CachedConnection, query: Sql): QueryColumn[] {
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
