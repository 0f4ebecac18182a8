import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type { BackgroundWriter } from '../db.js'
import type { CompiledQuery } from '../sql.js'
import { WORKER_STATEMENT_CACHE } from './worker-statements.js'

/**
 * The worker's code, kept as a string so it runs the same from `dist/` and under tsx. It opens
 * its own connection to the database file and runs each posted batch in one transaction.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.file)
db.pragma('busy_timeout = 10000')
db.pragma('journal_mode = WAL')
db.pragma('synchronous = NORMAL')
${WORKER_STATEMENT_CACHE}
const runBatch = db.transaction((queries) => {
  for (const q of queries) prepare(q.sql).run(...q.params)
})
const quote = (name) => '"' + String(name).replace(/"/g, '""') + '"'
const ROWS_PER_INSERT = 128
const insertText = (table, columns, rows) => {
  const one = '(' + columns.map(() => '?').join(', ') + ')'
  return 'INSERT INTO ' + quote(table) + ' (' + columns.map(quote).join(', ') + ') VALUES ' +
    Array.from({ length: rows }, () => one).join(', ')
}
const insertLines = db.transaction((msg) => {
  const text = Buffer.from(msg.lines.buffer, msg.lines.byteOffset, msg.lines.byteLength).toString('utf8')
  let params = []
  let rows = 0
  for (let at = 0; at < text.length; ) {
    let end = text.indexOf('\\n', at)
    if (end === -1) end = text.length
    if (end > at) {
      for (const v of JSON.parse(text.slice(at, end))) params.push(v)
      if (++rows === ROWS_PER_INSERT) {
        prepare(insertText(msg.table, msg.columns, rows)).run(params)
        params = []
        rows = 0
      }
    }
    at = end + 1
  }
  if (rows > 0) {
    const one = prepare(insertText(msg.table, msg.columns, 1))
    const n = msg.columns.length
    for (let i = 0; i < rows; i++) one.run(params.slice(i * n, (i + 1) * n))
  }
})
parentPort.on('message', (msg) => {
  if (msg.type === 'close') {
    db.close()
    parentPort.postMessage({ type: 'closed' })
    return
  }
  try {
    if (msg.type === 'lines') insertLines(msg)
    else runBatch(msg.queries)
    parentPort.postMessage({ type: 'done', id: msg.id })
  } catch (err) {
    parentPort.postMessage({ type: 'done', id: msg.id, error: String(err && err.message || err) })
  }
})
`

/** Binds what better-sqlite3 can bind: booleans become 0/1, undefined becomes NULL. */
function bindable(q: CompiledQuery): CompiledQuery {
  return {
    sql: q.sql,
    params: q.params.map((p) => (p === true ? 1 : p === false ? 0 : p === undefined ? null : p)),
  }
}

/**
 * Writes batches to an SQLite file from a worker thread, so bulk background writes (request
 * logs) never run on the event loop that serves requests. Batches run in order, one
 * transaction each.
 */
export class SqliteBackgroundWriter implements BackgroundWriter {
  private readonly worker: Worker
  private readonly pending = new Map<number, { resolve: () => void; reject: (e: Error) => void }>()
  private seq = 0
  private closing: Promise<void> | null = null
  /** Resolves when the thread has exited, for whatever reason. */
  private readonly exited: Promise<void>

  constructor(file: string) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3')
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver } })
    this.worker.on('message', (msg: { type: string; id?: number; error?: string }) => {
      if (msg.type !== 'done' || msg.id === undefined) return
      const p = this.pending.get(msg.id)
      this.pending.delete(msg.id)
      if (msg.error) p?.reject(new Error(msg.error))
      else p?.resolve()
    })
    this.worker.on('error', (err) => {
      for (const p of this.pending.values()) p.reject(err)
      this.pending.clear()
    })
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', (code) => {
        const err = new Error(`the background writer stopped (exit code ${code})`)
        for (const p of this.pending.values()) p.reject(err)
        this.pending.clear()
        resolve()
      }),
    )
    // NB: after the listeners: attaching a 'message' listener refs the worker again.
    this.worker.unref()
  }

  run(queries: readonly CompiledQuery[]): Promise<void> {
    return this.send({ type: 'batch', queries: queries.map(bindable) })
  }

  insertLines(table: string, columns: readonly string[], lines: Uint8Array): Promise<void> {
    // NB: the bytes move to the worker without a copy when they own their buffer.
    const own = lines.byteOffset === 0 && lines.byteLength === lines.buffer.byteLength
    const transfer = own && lines.buffer instanceof ArrayBuffer ? [lines.buffer] : []
    return this.send({ type: 'lines', table, columns: [...columns], lines }, transfer)
  }

  private send(msg: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<void> {
    if (this.closing) return Promise.reject(new Error('the background writer is closed'))
    const id = ++this.seq
    // Referenced while batches are in flight, so the process waits for them.
    if (this.pending.size === 0) this.worker.ref()
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      this.worker.postMessage({ ...msg, id }, transfer)
    }).finally(() => {
      if (this.pending.size === 0) this.worker.unref()
    })
  }

  /**
   * Closes the worker's connection and stops the thread; resolves once the thread is gone (also
   * when it had died before, which would never answer 'closed').
   */
  close(): Promise<void> {
    if (!this.closing) {
      // Referenced until the thread has gone: otherwise a process whose last work is this
      // close ends with the close still pending (exit code 13 under a top-level await).
      this.worker.ref()
      this.worker.on('message', (msg: { type: string }) => {
        if (msg.type === 'closed') void this.worker.terminate()
      })
      this.worker.postMessage({ type: 'close' })
      this.closing = this.exited
    }
    return this.closing
  }
}
