/**
 * Synchronous reads on PostgreSQL, for the synchronous `$app` finds of PocketBase-style `*.pb.js`
 * scripts (`Db.allSync` / `Db.getSync`). The `pg` driver has no synchronous API, so a worker
 * thread holds a connection of its own to the same database and schema, and the calling thread
 * blocks in `Atomics.wait` on a shared counter until the worker has answered, then takes the
 * answer with `receiveMessageOnPort` (the pattern of the `synckit` library, written out here so
 * the thread can be started lazily, bounded in time and closed with the store).
 *
 * Rows come back exactly as `PgDb.all` returns them: the worker sends the server's raw text
 * values and each column's type OID, and this thread parses them with the pool's own type
 * parsers (`pool.options.types`). The SQL is compiled by the same dialect; driver errors are
 * translated by `translatePgError`.
 *
 * What a synchronous read sees: outside a transaction, the data committed when it runs (a
 * statement of its own on the worker's connection), as `PgDb.all`. Inside one, the handle's
 * reads run on the transaction's own connection (`tx-sync-reads.ts`) and see what it wrote, as
 * SQLite's transaction handle does; see docs/postgresql.md.
 */
import { createRequire } from 'node:module'
import { performance } from 'node:perf_hooks'
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads'
import { DbError, type Db, type Row } from '../db.js'
import type { CompiledQuery, Sql } from '../sql.js'
import { PgDb, translatePgError, type PgDbOptions } from './database.js'
import { SYNC_READS_WORKER_SOURCE } from './sync-reads-worker.js'
import { connectionReader, type Unsent } from './tx-sync-reads.js'
import { PgTx, takeAhead } from './pg-tx.js'

/** The default `statement_timeout` of a synchronous read. */
const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000

/** Time limits of synchronous reads, in milliseconds. */
export interface SyncReadLimits {
  /** The server's `statement_timeout` for each read (default 10 s). */
  statementTimeoutMs?: number
  /** The server's `lock_timeout`: how long a read waits for a table a DDL statement locks (default 3 s). */
  lockTimeoutMs?: number
  /** How long opening the worker's connection may take (default 5 s). */
  connectTimeoutMs?: number
  /**
   * How long the calling thread waits for an answer before it gives up and stops the worker
   * (default: the connect and statement timeouts plus 2 s, so the server's limits act first).
   */
  waitMs?: number
}

/** What a `SyncReader` needs: where to connect, how to parse values, its limits. */
export interface SyncReaderOptions extends SyncReadLimits {
  /** The pool's connection settings (only plain values are taken: url, `options`, ssl flags). */
  connection: Readonly<Record<string, unknown>>
  /** The type parsers the values go through: the pool's own. */
  types: TypeParsers
  /** The path of the driver module the thread loads (default: this package's `pg`). */
  driver?: string
}

/** Where the parser of each type OID is found (`pg`'s `types` option). */
export interface TypeParsers {
  getTypeParser(oid: number, format: 'text'): (value: string) => unknown
}

/** An answer of the worker. */
interface Answer {
  id: number
  fields?: Array<{ name: string; oid: number }>
  /** Each row's values as the server's text (null for NULL). */
  rows?: Array<Array<string | null>>
  error?: Record<string, string>
  dead?: string
}

/** A running worker thread and its end of the channel. */
interface Thread {
  worker: Worker
  port: MessagePort
  /** `[0]` counts answers (the caller waits on it), `[1]` is 1 once the thread is gone. */
  signal: Int32Array
  exited: Promise<void>
}

/** Settings of a pool that concern a single pool-less connection. */
const POOL_ONLY = new Set(['max', 'min', 'maxUses', 'allowExitOnIdle', 'maxLifetimeSeconds'])

/** The plain-valued connection settings of `options` (functions and the parsers stay here). */
function connectionSettings(options: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(options)) {
    if (POOL_ONLY.has(k) || k.startsWith('idle')) continue
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = v
  }
  return out
}

/**
 * Reads answered synchronously by a worker thread with its own `pg` connection. The thread
 * starts on the first read; a read that gets no answer in time stops it (the next read starts
 * another); `close` ends its connection and waits until the thread is gone.
 */
export class SyncReader {
  private thread: Thread | null = null
  private seq = 0
  private closed = false
  /** Threads stopped or stopping, awaited by `close`. */
  private readonly ending = new Set<Promise<void>>()
  private readonly statementTimeoutMs: number
  private readonly lockTimeoutMs: number
  private readonly connectTimeoutMs: number
  private readonly waitMs: number

  constructor(private readonly options: SyncReaderOptions) {
    this.statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS
    this.lockTimeoutMs = options.lockTimeoutMs ?? 3_000
    this.connectTimeoutMs = options.connectTimeoutMs ?? 5_000
    this.waitMs = options.waitMs ?? this.connectTimeoutMs + this.statementTimeoutMs + 2_000
  }

  /** True while a worker thread runs. */
  get running(): boolean {
    return this.thread !== null
  }

  /** Runs a compiled query and returns its rows, parsed as the pool parses them. */
  all(query: CompiledQuery): Row[] {
    if (this.closed) throw new DbError('the database is closed', null)
    const t = this.start()
    const id = ++this.seq
    try {
      t.port.postMessage({ id, sql: query.sql, params: query.params })
    } catch (err) {
      throw translatePgError(err)
    }
    const deadline = performance.now() + this.waitMs
    for (;;) {
      const seen = Atomics.load(t.signal, 0)
      const got = receiveMessageOnPort(t.port)
      if (got) {
        const answer = got.message as Answer
        if (answer.id === id) return this.rows(answer)
        if (answer.id === -1) throw this.died(t, answer.dead ?? 'unknown reason')
        continue // the answer to a read that gave up earlier
      }
      if (Atomics.load(t.signal, 1) === 1) throw this.died(t, 'it exited')
      const left = deadline - performance.now()
      if (left <= 0) {
        this.stop(t)
        throw new DbError(
          `a synchronous PostgreSQL read got no answer within ${this.waitMs} ms; its worker thread was stopped`,
          null,
        )
      }
      Atomics.wait(t.signal, 0, seen, left)
    }
  }

  /** Ends the worker's connection and waits until every thread of this reader is gone. */
  async close(): Promise<void> {
    this.closed = true
    const t = this.thread
    if (t) {
      this.thread = null
      t.port.postMessage({ type: 'close' })
      // A thread that does not end on its own within 2 s is stopped.
      const timer = setTimeout(() => void t.worker.terminate(), 2_000)
      try {
        await t.exited
      } finally {
        clearTimeout(timer)
      }
    }
    await Promise.all([...this.ending])
  }

  /** The running thread, or a new one. */
  private start(): Thread {
    if (this.thread) return this.thread
    const signal = new Int32Array(new SharedArrayBuffer(8))
    const { port1, port2 } = new MessageChannel()
    const config = {
      ...connectionSettings(this.options.connection),
      statement_timeout: this.statementTimeoutMs,
      lock_timeout: this.lockTimeoutMs,
      connectionTimeoutMillis: this.connectTimeoutMs,
      application_name: 'svcbase sync reads',
    }
    const driver = this.options.driver ?? createRequire(import.meta.url).resolve('pg')
    const worker = new Worker(SYNC_READS_WORKER_SOURCE, {
      eval: true,
      workerData: { signal, port: port2, config, driver },
      transferList: [port2],
    })
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
    const t: Thread = { worker, port: port1, signal, exited }
    // Its failures reach the caller through the port and the signal (see the worker's code).
    worker.on('error', () => {})
    void exited.then(() => {
      if (this.thread === t) this.thread = null
      port1.close()
    })
    // The thread never keeps the process alive: reads wait for it synchronously.
    worker.unref()
    this.thread = t
    return t
  }

  /** Stops thread `t` without waiting (its exit is awaited by `close`). */
  private stop(t: Thread): void {
    if (this.thread === t) this.thread = null
    const gone = t.worker.terminate().then(
      () => {},
      () => {},
    )
    this.ending.add(gone)
    void gone.then(() => this.ending.delete(gone))
  }

  /** The error of a read whose thread is gone (the next read starts another). */
  private died(t: Thread, reason: string): Error {
    this.stop(t)
    return new DbError(`the PostgreSQL synchronous reader's worker thread stopped: ${reason}`, null)
  }

  /** The rows of an answer, each value through the pool's parser of its type; or its error. */
  private rows(answer: Answer): Row[] {
    if (answer.error) {
      throw translatePgError(Object.assign(new Error(answer.error.message), answer.error))
    }
    const fields = answer.fields ?? []
    const parsers = fields.map((f) => this.options.types.getTypeParser(f.oid, 'text'))
    return (answer.rows ?? []).map((values) => {
      const row: Row = {}
      for (let i = 0; i < fields.length; i++) {
        const v = values[i]
        row[fields[i]!.name] = v === null || v === undefined ? null : parsers[i]!(v)
      }
      return row
    })
  }
}

/**
 * `PgDb` with synchronous reads (`allSync` / `getSync`): on itself through a `SyncReader`
 * started on the first synchronous read and closed with the database; on the handles of its
 * transactions through the transaction's own connection. Asynchronous work is `PgDb`'s,
 * untouched.
 */
export class PgSyncDb extends PgDb {
  private reader: SyncReader | null = null
  private closing = false

  constructor(
    options: PgDbOptions,
    private readonly limits: SyncReadLimits = {},
  ) {
    super(options)
  }

  /** True while the reader's worker thread runs (it starts on the first synchronous read). */
  get syncReaderRunning(): boolean {
    return this.reader?.running ?? false
  }

  /** `all`, answered at once by the worker: committed data, as `all`. */
  allSync<T = Row>(query: Sql): T[] {
    const compiled = this.dialect.compile(query)
    this.options.verbose?.(compiled.sql)
    return this.syncReader().all(compiled) as T[]
  }

  /** `get`, answered at once: committed data only. */
  getSync<T = Row>(query: Sql): T | undefined {
    return this.allSync<T>(query)[0]
  }

  /**
   * `PgDb.transaction`, its handle given synchronous reads on the transaction's own connection
   * (`tx-sync-reads.ts`), so they see what the transaction wrote, as on SQLite. Where that
   * connection cannot be driven from this thread (TLS, or a statement in flight) they fall back
   * to the worker thread, which reads committed data only.
   */
  override transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    return super.transaction(async (tx) => {
      // NB: the attempt's own connection is on its handle (no async context needed to find it,
      // which would make Node track every promise of the process).
      const state = tx instanceof PgTx ? tx.state : null
      const own = state ? connectionReader(state.client, this.types(), this.timeoutMs) : null
      // The writes the transaction has not sent yet (`runLater`) go ahead of the read.
      const unsent: Unsent | undefined = state
        ? { open: () => state.begun, take: () => takeAhead(state, false) }
        : undefined
      const read = <R = Row>(q: Sql): R[] => {
        const compiled = this.dialect.compile(q)
        this.options.verbose?.(compiled.sql)
        return (own?.read(compiled, unsent) ?? this.syncReader().all(compiled)) as R[]
      }
      if (!tx.allSync) tx.allSync = read
      if (!tx.getSync) tx.getSync = <R = Row>(q: Sql): R | undefined => read<R>(q)[0]
      try {
        return await fn(tx)
      } finally {
        // The connection goes back to the pool: a handle kept past this reads on the worker.
        own?.end()
      }
    })
  }

  override async close(): Promise<void> {
    this.closing = true
    try {
      await super.close()
    } finally {
      await this.reader?.close()
    }
  }

  private get timeoutMs(): number {
    return this.limits.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS
  }

  /** The pool's type parsers. */
  private types(): TypeParsers {
    return this.pool.options.types as TypeParsers
  }

  private syncReader(): SyncReader {
    if (this.closing) throw new DbError('the database is closed', null)
    this.reader ??= new SyncReader({
      ...this.limits,
      connection: { ...this.pool.options },
      types: this.types(),
    })
    return this.reader
  }
}
