import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { DbError, ReadTimeout } from '../db.js'
import type { CompiledQuery } from '../sql.js'
import { budgetExtensionPath } from './budget-extension.js'
import { WORKER_STATEMENT_CACHE } from './worker-statements.js'

/**
 * The reader threads' code, kept as a string so it runs the same from `dist/` and under tsx. Each
 * opens a read-only connection with the `svc_budget` extension (a statement past the read budget
 * is interrupted) and answers one query at a time.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.file, { readonly: true, fileMustExist: true })
db.pragma('busy_timeout = 5000')
db.pragma('query_only = ON')
db.pragma('temp_store = MEMORY')
db.loadExtension(workerData.extension)
const budget = db.prepare('SELECT svc_budget(?, 0)')
budget.get(workerData.budgetMs)
${WORKER_STATEMENT_CACHE}
const bind = (params) => params.map((p) => (p instanceof Uint8Array && !Buffer.isBuffer(p) ? Buffer.from(p.buffer, p.byteOffset, p.byteLength) : p))
parentPort.on('message', (msg) => {
  if (msg.type === 'budget') {
    budget.get(msg.ms)
    return
  }
  try {
    const stmt = prepare(msg.sql)
    const rows = msg.mode === 'get' ? stmt.get(...bind(msg.params)) : stmt.all(...bind(msg.params))
    parentPort.postMessage({ type: 'done', id: msg.id, rows })
  } catch (err) {
    parentPort.postMessage({ type: 'done', id: msg.id, error: { code: err && err.code, message: String(err && err.message || err) } })
  }
})
`

interface Job {
  id: number
  query: CompiledQuery
  mode: 'all' | 'get'
  resolve: (rows: unknown) => void
  reject: (err: Error) => void
}

interface Reader {
  worker: Worker
  job: Job | null
  exited: Promise<void>
}

/** Reads answered by a reader thread, with the error SQLite gave. */
export interface PoolError {
  code?: string
  message: string
}

/** The error of a read stopped by the read budget. */
export function readTimeout(budgetMs: number, cause: unknown): DbError {
  return new ReadTimeout(budgetMs, cause)
}

/** Turns rows as they crossed the thread boundary back into the driver's values (Buffers for BLOBs). */
function revive(value: unknown): unknown {
  if (Array.isArray(value)) {
    for (const row of value) reviveRow(row as Record<string, unknown>)
  } else if (value && typeof value === 'object') {
    reviveRow(value as Record<string, unknown>)
  }
  return value
}

function reviveRow(row: Record<string, unknown>): void {
  for (const key in row) {
    const v = row[key]
    if (v instanceof Uint8Array && !Buffer.isBuffer(v))
      row[key] = Buffer.from(v.buffer, v.byteOffset, v.byteLength)
  }
}

/**
 * Reader threads for the reads that would hold the event loop: a read the main thread's reader
 * stopped at its slice runs here again, with the whole read budget, while the event loop goes on
 * serving. The threads start on first use; at most `size` reads run at once and at most
 * `maxQueue` wait, beyond which a read fails at once as `DbError` of kind `busy`.
 */
export class ReadPool {
  private readonly readers: Reader[] = []
  private readonly queue: Job[] = []
  private seq = 0
  private closed = false

  constructor(
    private readonly file: string,
    private budgetMs: number,
    private readonly size = 2,
    private readonly maxQueue = 64,
  ) {}

  /** The budget of each read, in milliseconds; applies to the reads that start after it. */
  setBudget(ms: number): void {
    this.budgetMs = ms
    for (const r of this.readers) r.worker.postMessage({ type: 'budget', ms })
  }

  get budget(): number {
    return this.budgetMs
  }

  run(query: CompiledQuery, mode: 'all' | 'get'): Promise<unknown> {
    if (this.closed) return Promise.reject(new DbError('the database is closed', null))
    const idle = this.readers.find((r) => r.job === null)
    if (!idle && this.readers.length >= this.size && this.queue.length >= this.maxQueue) {
      return Promise.reject(
        new DbError('too many slow reads are waiting for a reader thread', null, 'busy'),
      )
    }
    return new Promise((resolve, reject) => {
      const job: Job = { id: ++this.seq, query, mode, resolve, reject }
      const reader = idle ?? (this.readers.length < this.size ? this.start() : null)
      if (reader) this.send(reader, job)
      else this.queue.push(job)
    })
  }

  private start(): Reader {
    const extension = budgetExtensionPath()
    if (!extension) throw new DbError('the read budget extension is not available', null)
    const driver = createRequire(import.meta.url).resolve('better-sqlite3')
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file: this.file, driver, extension, budgetMs: this.budgetMs },
    })
    const reader: Reader = { worker, job: null, exited: Promise.resolve() }
    worker.on(
      'message',
      (msg: { type: string; id?: number; rows?: unknown; error?: PoolError }) => {
        if (msg.type !== 'done') return
        const job = reader.job
        reader.job = null
        if (job && job.id === msg.id) {
          if (msg.error) job.reject(this.failure(msg.error))
          else job.resolve(revive(msg.rows))
        }
        this.next(reader)
      },
    )
    reader.exited = new Promise((resolve) =>
      worker.once('exit', (code) => {
        const i = this.readers.indexOf(reader)
        if (i >= 0) this.readers.splice(i, 1)
        reader.job?.reject(new DbError(`a reader thread stopped (exit code ${code})`, null))
        reader.job = null
        resolve()
        if (!this.closed && this.queue.length > 0) this.send(this.start(), this.queue.shift()!)
      }),
    )
    worker.on('error', () => undefined)
    worker.unref()
    this.readers.push(reader)
    return reader
  }

  private failure(error: PoolError): Error {
    if (error.code === 'SQLITE_INTERRUPT') return readTimeout(this.budgetMs, error)
    return new DbError(error.message, error)
  }

  private send(reader: Reader, job: Job): void {
    reader.job = job
    reader.worker.ref()
    reader.worker.postMessage({
      type: 'read',
      id: job.id,
      sql: job.query.sql,
      params: job.query.params,
      mode: job.mode,
    })
  }

  private next(reader: Reader): void {
    const job = this.queue.shift()
    if (job) this.send(reader, job)
    else reader.worker.unref()
  }

  /** Stops the threads (a read running in one ends at its budget at the latest). */
  async close(): Promise<void> {
    this.closed = true
    for (const job of this.queue.splice(0)) job.reject(new DbError('the database is closed', null))
    await Promise.all(this.readers.map((r) => r.worker.terminate()))
  }
}
