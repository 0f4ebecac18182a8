import { createRequire } from 'node:module'
import { performance } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'
import type Database from 'better-sqlite3'

/**
 * WAL checkpoints away from the event loop. SQLite's automatic checkpoint runs in the connection
 * that commits, once the WAL passes 1000 pages: on the writer, so the event loop copies those
 * pages into the database file and waits for their fsync (synchronous = NORMAL syncs at each
 * checkpoint) every few hundred writes. Once the writer is busy (`BUSY_COMMITS` commits within a
 * second), a worker thread with its own connection runs `PRAGMA wal_checkpoint(PASSIVE)` every
 * `INTERVAL_MS` after writes (PASSIVE never blocks the writer or the readers), and the writer's
 * automatic checkpoint moves up to `BACKSTOP_PAGES`, where it only acts if the worker falls far
 * behind. A quiet database keeps SQLite's default and never starts the thread (~3 MB).
 *
 * The WAL file keeps the size it grew to: while writes go on, the worker's checkpoints never catch
 * the last commit, so SQLite cannot start the WAL over, and it grows until the writer's own
 * checkpoint at the backstop (then it starts over from the beginning). Once the writes pause for
 * `QUIET_MS`, the worker runs `wal_checkpoint(TRUNCATE)`, which empties the file (if a reader is
 * in the way it gives up at once, and the next pause tries again).
 */

/** Commits within one second from which the worker takes the checkpoints. */
const BUSY_COMMITS = 100
/** Milliseconds between a write and the checkpoint it asks for. */
const INTERVAL_MS = 200
/** The writer's automatic checkpoint once the worker checkpoints (pages, ~16 MB). */
export const BACKSTOP_PAGES = 4_000
/** Milliseconds without a commit after which the worker truncates the WAL. */
const QUIET_MS = 1_000

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.file)
db.pragma('busy_timeout = 0')
db.pragma('synchronous = NORMAL')
parentPort.on('message', (msg) => {
  if (msg === 'close') {
    db.close()
    parentPort.postMessage('closed')
    return
  }
  try {
    db.pragma(msg === 'truncate' ? 'wal_checkpoint(TRUNCATE)' : 'wal_checkpoint(PASSIVE)')
    parentPort.postMessage(msg === 'truncate' ? 'truncated' : 'done')
  } catch (err) {
    parentPort.postMessage('failed: ' + String(err && err.message || err))
  }
})
`

/** Decides when the writer's WAL is checkpointed, and by whom (see the module comment). */
export class WalCheckpoints {
  private worker: Worker | null = null
  private windowStart = 0
  private commits = 0
  private timer: NodeJS.Timeout | null = null
  private quiet: NodeJS.Timeout | null = null
  private running = false
  private again = false
  private closing: Promise<void> | null = null
  /** Checkpoints the worker has run (for tests). */
  ran = 0
  /** Truncating checkpoints the worker has run once writes paused (for tests). */
  truncated = 0

  constructor(
    private readonly file: string,
    private readonly writer: Database.Database,
  ) {}

  /** Called after each commit of the writer. */
  committed(): void {
    if (this.closing) return
    if (!this.worker) {
      const now = performance.now()
      if (now - this.windowStart > 1000) {
        this.windowStart = now
        this.commits = 0
      }
      if (++this.commits < BUSY_COMMITS) return
      this.start()
    }
    this.quiet?.refresh()
    if (this.timer) return
    this.timer = setTimeout(() => {
      this.timer = null
      this.run()
    }, INTERVAL_MS)
    this.timer.unref()
  }

  /** Whether the worker thread takes the checkpoints. */
  get offloaded(): boolean {
    return this.worker !== null
  }

  private start(): void {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3')
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file: this.file, driver },
    })
    worker.on('message', (msg: string) => {
      if (msg === 'closed') return void worker.terminate()
      if (msg === 'done') this.ran++
      else if (msg === 'truncated') this.truncated++
      else process.emitWarning(`WAL checkpoint ${msg}`)
      this.running = false
      if (this.again && !this.closing) {
        this.again = false
        this.run()
      }
    })
    worker.on('error', (err) => {
      process.emitWarning(`the WAL checkpoint thread failed: ${String(err)}`)
      this.stopped()
    })
    worker.unref()
    this.worker = worker
    this.writer.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`)
    // NB: refreshed at each commit, so it fires once writes have paused for QUIET_MS.
    this.quiet = setTimeout(() => this.truncate(), QUIET_MS)
    this.quiet.unref()
  }

  /** Writes paused: empties the WAL file when no reader is in the way. */
  private truncate(): void {
    if (!this.worker || this.closing) return
    if (this.running) {
      // NB: a checkpoint is still running; try again after another quiet spell.
      this.quiet?.refresh()
      return
    }
    this.running = true
    this.worker.postMessage('truncate')
  }

  /** The thread is gone: the writer checkpoints by itself again. */
  private stopped(): void {
    if (this.quiet) clearTimeout(this.quiet)
    this.quiet = null
    this.worker = null
    this.running = false
    try {
      if (this.writer.open) this.writer.pragma('wal_autocheckpoint = 1000')
    } catch {
      // closed meanwhile
    }
  }

  private run(): void {
    if (!this.worker || this.closing) return
    if (this.running) {
      this.again = true
      return
    }
    this.running = true
    this.worker.postMessage('checkpoint')
  }

  /** Stops the thread (after the checkpoint it may be running); resolves once it is gone. */
  close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    if (this.quiet) clearTimeout(this.quiet)
    this.quiet = null
    if (!this.closing) {
      const worker = this.worker
      this.closing = worker
        ? new Promise<void>((resolve) => {
            worker.once('exit', () => resolve())
            worker.ref()
            worker.postMessage('close')
          })
        : Promise.resolve()
    }
    return this.closing
  }
}
