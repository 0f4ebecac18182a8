import type { App } from '../../core/app.js'
import type { Collection } from '../../core/collections/model.js'
import type { BackgroundWriter, Db } from '../../store/db.js'
import { ident, join, param, sql, type Sql } from '../../store/sql.js'
import { formatDate } from '../../tools/dates.js'
import { sortableId } from '../../tools/ids.js'
import { serializeLogData } from './data-size.js'
import { LineQueue, parseLines } from './line-queue.js'

/** Log levels as PocketBase stores them (Go slog levels). */
export const LogLevel = { debug: -4, info: 0, warn: 4, error: 8 } as const

/** Tuning of a `LogWriter`. */
export interface LogWriterOptions {
  /** Milliseconds between the first queued entry and its flush. */
  flushInterval?: number
  /** Entries per transaction; a queue this long is flushed at once. */
  batchSize?: number
  /** Entries held at most; beyond it new entries are dropped and counted. */
  maxQueue?: number
}

/** Rows per INSERT statement; the remainder uses power-of-two sizes, so few statements are cached. */
const ROWS_PER_INSERT = 128

/** Splits `n` rows into statement sizes: full chunks, then powers of two. */
function chunkSizes(n: number): number[] {
  const sizes: number[] = []
  let left = n
  while (left >= ROWS_PER_INSERT) {
    sizes.push(ROWS_PER_INSERT)
    left -= ROWS_PER_INSERT
  }
  for (let p = ROWS_PER_INSERT / 2; p >= 1; p /= 2) {
    if (left >= p) {
      sizes.push(p)
      left -= p
    }
  }
  return sizes
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * Entries in one batch from which the writer moves to the database's worker thread (and stays
 * there): 64 entries in one flush interval is a server answering hundreds of requests a second.
 * The thread costs a V8 isolate and a connection of its own, ~6 MB resident for the rest of the
 * process, which a quiet server does not need: its few rows are written on the event loop.
 */
const BACKGROUND_FROM_BATCH = 64

/**
 * Writes `_logs` rows off the request path: entries queue in memory and are inserted in batches
 * (one transaction of multi-row INSERTs per batch) after `flushInterval` or as soon as
 * `batchSize` entries wait. `settings.logs` is read live: nothing is queued when `maxDays` is 0
 * or the level is below `minLevel`, and `maxDataSize` bounds each row's `data` JSON.
 */
export class LogWriter {
  private readonly queue = new LineQueue()
  private timer: NodeJS.Timeout | null = null
  private running: Promise<void> | null = null
  private closed = false
  private droppedUnreported = 0
  private readonly flushInterval: number
  private readonly batchSize: number
  private readonly maxQueue: number
  private background: BackgroundWriter | null = null
  /** The millisecond and text of the last `created` made (requests share milliseconds). */
  private lastAt = -1
  private lastCreated = ''
  /** Entries written since start. */
  written = 0
  /** Entries lost since start: queue overflow or a failed write. */
  dropped = 0

  constructor(
    private readonly app: App,
    options: LogWriterOptions = {},
  ) {
    this.flushInterval = options.flushInterval ?? 200
    this.batchSize = options.batchSize ?? 500
    this.maxQueue = options.maxQueue ?? 100_000
  }

  /** Entries waiting to be written. */
  get pending(): number {
    return this.queue.count
  }

  /** Queues one entry; returns false when settings or a full queue leave it out. */
  add(level: number, message: string, data: Record<string, unknown>): boolean {
    if (this.closed) return false
    const { maxDays, minLevel, maxDataSize } = this.app.settings.get().logs
    if (maxDays <= 0 || level < minLevel) return false
    if (this.queue.count >= this.maxQueue) {
      this.dropped++
      this.droppedUnreported++
      this.schedule()
      return false
    }
    const at = Date.now()
    if (at !== this.lastAt) {
      this.lastAt = at
      this.lastCreated = formatDate(new Date(at))
    }
    const created = this.lastCreated
    const json = serializeLogData(data, maxDataSize)
    this.queue.push([sortableId(at), level, message, json, created, created])
    if (this.queue.count >= this.batchSize) this.start()
    else this.schedule()
    return true
  }

  /** Writes everything queued so far; resolves once it is stored (or dropped on a write error). */
  async flush(): Promise<void> {
    this.clearTimer()
    for (;;) {
      if (this.running) await this.running
      else if (this.queue.count === 0) break
      else this.start()
    }
    this.reportDropped()
  }

  /**
   * Flushes what is queued and refuses new entries until `open()`. The database's worker is
   * let go (the database closes it), so an app restarting in-process gets a fresh one.
   */
  async close(): Promise<void> {
    this.closed = true
    await this.flush()
    this.background = null
  }

  /** Accepts entries again after `close()` (an app serving again after a restart). */
  open(): void {
    this.closed = false
  }

  private schedule(): void {
    if (this.timer || this.running || this.closed) return
    this.timer = setTimeout(() => {
      this.timer = null
      this.start()
    }, this.flushInterval)
    this.timer.unref()
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }

  private start(): void {
    if (this.running) return
    this.clearTimer()
    this.running = this.drain().finally(() => {
      this.running = null
      this.reportDropped()
      if (this.queue.count > 0) this.schedule()
    })
  }

  private async drain(): Promise<void> {
    while (this.queue.count > 0) {
      const batch = this.queue.take()
      try {
        await this.write(batch.lines, batch.count)
        this.written += batch.count
      } catch (err) {
        this.dropped += batch.count
        this.app.logger.error('writing request logs failed', {
          entries: batch.count,
          error: String(err),
        })
      }
      // NB: SQLite writes are synchronous; yield so requests run between batches.
      await tick()
      // What came in meanwhile waits for the next flush unless it is a full batch: on a busy
      // server, taking it at once made a batch of the few rows of each round trip to the
      // worker (a postMessage of ~0.2 ms each, one after the other).
      if (this.queue.count < this.batchSize) break
    }
  }

  private async write(lines: Uint8Array, count: number): Promise<void> {
    const collection = this.app.collections.find('_logs')
    if (!collection) throw new Error('the _logs collection is missing')
    const db: Db = this.app.dbFor(collection)
    if (!this.background && count >= BACKGROUND_FROM_BATCH)
      this.background = db.backgroundWriter?.() ?? null
    // NB: once started, the worker thread's connection does the writing (parsing the lines and
    // running the INSERTs), so the SQLite work of request logging on a busy server never runs on
    // the event loop serving requests.
    if (this.background) {
      await this.background.insertLines(collection.name, LOG_COLUMNS, lines)
      return
    }
    const rows = parseLines(lines)
    const chunks: Array<{ at: number; size: number }> = []
    let at = 0
    for (const size of chunkSizes(rows.length)) {
      chunks.push({ at, size })
      at += size
    }
    await db.transaction(async (tx) => {
      for (const c of chunks) await tx.run(insertRows(collection, rows.slice(c.at, c.at + c.size)))
    })
  }

  private reportDropped(): void {
    if (this.droppedUnreported === 0) return
    this.app.logger.warn('request log queue full: entries dropped', {
      dropped: this.droppedUnreported,
      maxQueue: this.maxQueue,
    })
    this.droppedUnreported = 0
  }
}

/** The columns of a `_logs` row, in the order `add` queues their values. */
const LOG_COLUMNS = ['id', 'level', 'message', 'data', 'created', 'updated']

/** `INSERT INTO _logs (…) VALUES (…), (…)`; every value is a bound parameter. */
function insertRows(collection: Collection, rows: readonly unknown[][]): Sql {
  const columns = LOG_COLUMNS.map((c) => ident(c))
  const values = rows.map((r) => sql`(${join(r.map((v) => param(v)))})`)
  return sql`INSERT INTO ${ident(collection.name)} (${join(columns)}) VALUES ${join(values)}`
}
