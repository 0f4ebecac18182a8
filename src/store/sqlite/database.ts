import { DbError, type BackgroundWriter, type Db, type QueryColumn, type Row } from '../db.js'
import {
  CachedConnection,
  describe,
  exec,
  execCompiled,
  isInterrupt,
  openConnection,
  translateSqliteError,
  type SqliteOptions,
} from './connection.js'
import { CommitGroup } from './commit-group.js'
import { ReadPool, readTimeout } from './read-pool.js'
import { SqliteBackgroundWriter } from './background-writer.js'
import { WalCheckpoints } from './checkpoints.js'
import type { Sql } from '../sql.js'
import { snapshotSqlite } from './snapshot.js'
import { sqliteDialect } from './sqlite-dialect.js'
import { WriterLock } from './writer-lock.js'

export { translateSqliteError, type SqliteOptions } from './connection.js'

/** At most this many transactions share one commit. */
const MAX_GROUP_SIZE = 32
/** A commit group takes no newcomers once it has been open this long (milliseconds). */
const MAX_GROUP_AGE_MS = 4
/**
 * How long a read may run on the event loop (milliseconds) before the reader stops it and it runs
 * again on a reader thread, with the whole read budget (see `ReadPool`).
 */
export const EVENT_LOOP_SLICE_MS = 20
/** The read budget until settings set one (milliseconds). */
export const DEFAULT_READ_BUDGET_MS = 5_000
/** How many statements that overran the slice are remembered, to send them to a thread at once. */
const SLOW_STATEMENTS = 256

/** The handle given to code inside a transaction: everything on the writer. */
class SqliteTx implements Db {
  readonly dialect = sqliteDialect
  readonly inTransaction = true

  constructor(
    private readonly writer: CachedConnection,
    private readonly root: SqliteDb,
    private readonly group: CommitGroup,
  ) {}

  async all<T = Row>(query: Sql): Promise<T[]> {
    return this.exec(query, 'all') as T[]
  }
  async get<T = Row>(query: Sql): Promise<T | undefined> {
    return this.exec(query, 'get') as T | undefined
  }
  async run(query: Sql): Promise<{ changes: number }> {
    return this.exec(query, 'run') as { changes: number }
  }
  allSync<T = Row>(query: Sql): T[] {
    return this.exec(query, 'all') as T[]
  }
  getSync<T = Row>(query: Sql): T | undefined {
    return this.exec(query, 'get') as T | undefined
  }
  /** Runs on the writer; a read stopped by `limitReads` fails as a read timeout. */
  private exec(query: Sql, mode: 'all' | 'get' | 'run'): unknown {
    try {
      return exec(this.writer, query, mode)
    } catch (err) {
      if (isInterrupt(err)) throw readTimeout(this.group.readLimitMs, err)
      throw err
    }
  }
  /**
   * Stops this transaction's read-only statements that run longer than `ms` (the record
   * service's writes, whose rule checks run on the event loop); lasts until the member ends.
   */
  limitReads(ms: number): void {
    if (this.writer.setLimit(ms)) this.group.readLimitMs = ms
  }
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    return fn(this)
  }
  onCommit(fn: () => void): void {
    this.group.closed = true
    this.group.committed.push(fn)
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
 * An SQLite database file in WAL mode: one writer connection whose use is serialised by a
 * first-come-first-served lock (a transaction holds it across awaits, so two requests never
 * interleave inside one), and one reader connection for reads outside a transaction.
 *
 * Group commit: a finished transaction leaves the SQLite transaction open, and the transactions
 * that reach the writer before the event loop has polled for I/O once more continue in it (each
 * in a savepoint), up to `MAX_GROUP_SIZE` members or `MAX_GROUP_AGE_MS`; then one `COMMIT`
 * settles them all. Under load most transactions skip their own `BEGIN`/`COMMIT` (the WAL append
 * is the dearest part of a small write); alone, a transaction costs one turn of the loop more.
 */
export class SqliteDb implements Db {
  readonly dialect = sqliteDialect
  readonly inTransaction = false
  private readonly writer: CachedConnection
  private readonly reader: CachedConnection
  private readonly lock = new WriterLock()
  private readonly workers: SqliteBackgroundWriter[] = []
  /** Reader threads for the reads that overran the event loop's slice. */
  private readonly pool: ReadPool
  /** Statements that overran the slice once: they go to a reader thread at once. */
  private readonly slow = new Set<string>()
  private budgetMs = DEFAULT_READ_BUDGET_MS
  /** The open commit group, if any (only ever touched while holding the lock). */
  private group: CommitGroup | null = null
  /** Who checkpoints the WAL: the writer itself, or a worker thread once writes are frequent. */
  readonly checkpoints: WalCheckpoints

  constructor(
    readonly file: string,
    options: SqliteOptions = {},
  ) {
    const busy = options.busyTimeout ?? 10_000
    this.writer = new CachedConnection(openConnection(file, busy, false, options.verbose, 0))
    this.reader = new CachedConnection(
      openConnection(file, busy, true, options.verbose, EVENT_LOOP_SLICE_MS),
    )
    this.checkpoints = new WalCheckpoints(file, this.writer.conn)
    this.pool = new ReadPool(file, this.budgetMs)
  }

  all<T = Row>(query: Sql): Promise<T[]> {
    return this.read(query, 'all') as Promise<T[]>
  }

  get<T = Row>(query: Sql): Promise<T | undefined> {
    return this.read(query, 'get') as Promise<T | undefined>
  }

  /**
   * A read on the event loop, stopped by the reader once it has run `EVENT_LOOP_SLICE_MS` and
   * then run again on a reader thread with the whole read budget; a statement that overran once
   * goes to a thread at once from then on.
   */
  private async read(query: Sql, mode: 'all' | 'get'): Promise<unknown> {
    const compiled = sqliteDialect.compile(query)
    if (this.slow.has(compiled.sql)) return this.pool.run(compiled, mode)
    try {
      return execCompiled(this.reader, compiled, mode)
    } catch (err) {
      if (!isInterrupt(err)) throw err
      if (this.slow.size >= SLOW_STATEMENTS) this.slow.delete(this.slow.values().next().value!)
      this.slow.add(compiled.sql)
      return this.pool.run(compiled, mode)
    }
  }

  setReadBudget(ms: number): void {
    this.budgetMs = ms
    this.pool.setBudget(ms)
  }

  dataVersion(): number {
    return this.reader.conn.pragma('data_version', { simple: true }) as number
  }

  /** `all` answered at once, on the reader: committed data only. */
  allSync<T = Row>(query: Sql): T[] {
    return this.readSync(query, 'all') as T[]
  }

  /** `get` answered at once, on the reader: committed data only. */
  getSync<T = Row>(query: Sql): T | undefined {
    return this.readSync(query, 'get') as T | undefined
  }

  /**
   * A read that must answer at once (hook scripts' synchronous finds): on the event loop, with
   * the whole read budget as its limit.
   */
  private readSync(query: Sql, mode: 'all' | 'get'): unknown {
    const limited = this.reader.setLimit(this.budgetMs)
    try {
      return exec(this.reader, query, mode)
    } catch (err) {
      if (isInterrupt(err)) throw readTimeout(this.budgetMs, err)
      throw err
    } finally {
      if (limited) this.reader.setLimit(EVENT_LOOP_SLICE_MS)
    }
  }

  run(query: Sql): Promise<{ changes: number }> {
    return this.lock.run(() => {
      this.commitGroup()
      const out = exec(this.writer, query, 'run') as { changes: number }
      this.checkpoints.committed()
      return out
    })
  }

  async describe(query: Sql): Promise<QueryColumn[]> {
    return describe(this.reader, query)
  }

  onCommit(fn: () => void): void {
    fn()
  }

  async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    const { result, group } = await this.lock.run(() => this.member(fn))
    await group.done
    return result
  }

  /** Runs one transaction as a member of the open group (or of a new one); holds the lock. */
  private async member<T>(fn: (tx: Db) => Promise<T>): Promise<{ result: T; group: CommitGroup }> {
    const conn = this.writer.conn
    const joining = this.group !== null
    const group = this.group ?? new CommitGroup()
    // Earlier members never registered onCommit callbacks (that closes the group), but keep
    // exactly the ones of those before this member anyway.
    const callbacksBefore = group.committed.length
    if (!joining) {
      this.writer.prepare('BEGIN IMMEDIATE').run()
      this.group = group
    }
    let savepoint = false
    try {
      if (joining) {
        this.writer.prepare('SAVEPOINT svc_member').run()
        savepoint = true
      }
      const result = await fn(new SqliteTx(this.writer, this, group))
      if (!conn.inTransaction) throw new DbError('the transaction was rolled back by SQLite', null)
      if (joining) this.writer.prepare('RELEASE svc_member').run()
      group.size++
      return { result, group }
    } catch (err) {
      group.committed.length = callbacksBefore
      this.undoMember(group, joining, savepoint, err)
      throw err
    } finally {
      if (group.readLimitMs > 0) {
        group.readLimitMs = 0
        this.writer.setLimit(0)
      }
      this.endTurn()
    }
  }

  /** Takes a failed member's work out of the shared transaction. */
  private undoMember(group: CommitGroup, joining: boolean, savepoint: boolean, err: unknown): void {
    const conn = this.writer.conn
    if (!conn.inTransaction) {
      // SQLite rolled the whole transaction back (I/O error, disk full): the members before this
      // one lost their work too.
      this.group = null
      group.settle(err instanceof Error ? err : new Error(String(err)))
    } else if (savepoint) {
      this.writer.prepare('ROLLBACK TO svc_member').run()
      this.writer.prepare('RELEASE svc_member').run()
    } else if (!joining) {
      this.writer.prepare('ROLLBACK').run()
      this.group = null
      group.settle()
    }
  }

  /**
   * At the end of a member: commits now if the group is full, old or closed; else leaves it open
   * for the transactions that reach the writer in this turn of the event loop and the next (with
   * this turn alone, creates on new connections came one per turn: groups of 1.00–1.04).
   */
  private endTurn(): void {
    const group = this.group
    if (!group) return
    if (
      group.closed ||
      group.size >= MAX_GROUP_SIZE ||
      performance.now() - group.opened >= MAX_GROUP_AGE_MS
    ) {
      this.commitGroup()
    } else if (!group.scheduled) {
      group.scheduled = true
      const commit = (): void => {
        this.lock
          .run(() => {
            if (this.group === group) this.commitGroup()
          })
          .catch((err: unknown) => {
            // Only an onCommit callback can throw here, after the commit succeeded.
            process.emitWarning(`an onCommit callback failed: ${String(err)}`)
          })
      }
      setImmediate(() => setImmediate(commit)) // the next turn's check phase, after its I/O
    }
  }

  /** Commits the open group, if any, and settles its members. */
  private commitGroup(): void {
    const group = this.group
    if (!group) return
    this.group = null
    try {
      this.writer.prepare('COMMIT').run()
    } catch (err) {
      if (this.writer.conn.inTransaction) this.writer.prepare('ROLLBACK').run()
      group.settle(translateSqliteError(err))
      return
    }
    this.checkpoints.committed()
    try {
      for (const fn of group.committed) fn()
    } finally {
      group.settle()
    }
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
    return this.lock.run(() => {
      this.commitGroup()
      this.writer.conn.exec(text)
    })
  }

  /**
   * Runs `fn` holding the writer, once the open commit group is committed: no transaction of
   * the app starts before it ends (the SQL console's writes, on a connection of their own).
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.lock.run(() => {
      this.commitGroup()
      return fn()
    })
  }

  /**
   * The daily upkeep (PocketBase's `__pbDBOptimize__`): `PRAGMA optimize` refreshes the query
   * planner's statistics where they are stale, then a `TRUNCATE` checkpoint copies the WAL into
   * the database and empties it. The checkpoint never waits: a reader still on an older
   * snapshot (a backup, a console read) would make it sleep on the event loop for the busy
   * timeout, so it does what it can at once and leaves the rest to the next one.
   */
  optimize(): Promise<void> {
    return this.lock.run(() => {
      this.commitGroup()
      const conn = this.writer.conn
      conn.pragma('optimize')
      const busy = conn.pragma('busy_timeout', { simple: true }) as number
      conn.pragma('busy_timeout = 0')
      try {
        conn.pragma('wal_checkpoint(TRUNCATE)')
      } finally {
        conn.pragma(`busy_timeout = ${busy}`)
      }
    })
  }

  /**
   * Writes a consistent copy of the committed database to `target` (online backup), from a
   * connection of its own: the writer may hold an open commit group whose pages are not
   * committed, and SQLite's page-by-page backup would start over at every write of another
   * connection.
   */
  backup(target: string): Promise<void> {
    return snapshotSqlite(this.file, target)
  }

  async close(): Promise<void> {
    await Promise.all([
      ...this.workers.map((w) => w.close()),
      this.checkpoints.close(),
      this.pool.close(),
    ])
    await this.lock.run(() => this.commitGroup())
    await this.lock.idle()
    this.reader.conn.close()
    this.writer.conn.close()
  }
}
