import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'

/**
 * The workers' code, a string so it runs the same from `dist/` and under tsx: bcryptjs (pure
 * JavaScript, portable) answering hash and compare requests.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const bcrypt = require(workerData.bcrypt)
parentPort.on('message', (m) => {
  try {
    const result = m.op === 'hash' ? bcrypt.hashSync(m.plain, m.cost) : bcrypt.compareSync(m.plain, m.hash)
    parentPort.postMessage({ id: m.id, result })
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: String((err && err.message) || err) })
  }
})
`

type Job = { resolve: (v: string | boolean) => void; reject: (e: Error) => void }

interface PoolWorker {
  worker: Worker
  busy: number
  /** Stops the worker after a quiet spell, so an idle server does not keep its memory. */
  idle: NodeJS.Timeout | null
}

/** How long an unused worker lives on. */
const IDLE_MS = 5_000

/**
 * bcrypt on worker threads, one per core, started on first use: hashing and checking passwords
 * (tens of milliseconds each at cost 10) never block the event loop, and sign-ins use every core.
 */
export class BcryptPool {
  private workers: PoolWorker[] = []
  private readonly jobs = new Map<number, Job>()
  private seq = 0
  /** Apps holding the pool (see `retain`). */
  private users = 0
  /** True once the last app released the pool: workers stop as soon as they are idle. */
  private draining = false

  constructor(private readonly size = Math.max(1, availableParallelism())) {}

  /** The number of worker threads running. */
  get running(): number {
    return this.workers.length
  }

  /**
   * Marks one more app as using the pool (an app does so while bootstrapped); returns the
   * release function. When the last user releases, idle workers stop at once and busy ones as
   * soon as their job ends, so a terminated app leaves no thread behind.
   */
  retain(): () => Promise<void> {
    this.users++
    this.draining = false
    let released = false
    return async () => {
      if (released) return
      released = true
      if (--this.users > 0) return
      this.draining = true
      await Promise.all(this.workers.filter((w) => w.busy === 0).map((w) => this.stop(w)))
    }
  }

  /** A bcrypt hash of `plain` at `cost`. */
  async hash(plain: string, cost: number): Promise<string> {
    return (await this.run({ op: 'hash', plain, cost })) as string
  }

  /** True when `plain` matches the bcrypt `hash`. */
  async compare(plain: string, hash: string): Promise<boolean> {
    return (await this.run({ op: 'compare', plain, hash })) as boolean
  }

  private run(message: Record<string, unknown>): Promise<string | boolean> {
    const w = this.pick()
    const id = ++this.seq
    // Referenced while it has work, so the process waits for the answer; idle workers never
    // keep it alive.
    if (w.idle) clearTimeout(w.idle)
    w.idle = null
    if (w.busy++ === 0) w.worker.ref()
    return new Promise<string | boolean>((resolve, reject) => {
      this.jobs.set(id, { resolve, reject })
      w.worker.postMessage({ ...message, id })
    }).finally(() => {
      if (--w.busy === 0) {
        w.worker.unref()
        if (this.draining) {
          void this.stop(w)
          return
        }
        w.idle = setTimeout(() => void this.stop(w), IDLE_MS)
        w.idle.unref()
      }
    })
  }

  /** The least busy worker, starting workers until the pool is full. */
  private pick(): PoolWorker {
    const idle = this.workers.find((w) => w.busy === 0)
    if (idle) return idle
    if (this.workers.length < this.size) return this.start()
    return this.workers.reduce((a, b) => (b.busy < a.busy ? b : a))
  }

  private async stop(w: PoolWorker): Promise<void> {
    if (w.busy > 0) return
    if (w.idle) clearTimeout(w.idle)
    w.idle = null
    this.workers = this.workers.filter((x) => x !== w)
    await w.worker.terminate()
  }

  private start(): PoolWorker {
    const bcrypt = createRequire(import.meta.url).resolve('bcryptjs')
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bcrypt } })
    worker.on('message', (m: { id: number; result?: string | boolean; error?: string }) => {
      const job = this.jobs.get(m.id)
      this.jobs.delete(m.id)
      if (m.error !== undefined) job?.reject(new Error(m.error))
      else job?.resolve(m.result!)
    })
    // NB: after the listener: attaching a 'message' listener refs the worker again.
    worker.unref()
    const entry: PoolWorker = { worker, busy: 0, idle: null }
    this.workers.push(entry)
    return entry
  }
}

/**
 * The process-wide pool: workers are a per-process resource, like libuv's thread pool. Apps
 * `retain` it while bootstrapped, so the threads stop when the last app terminates.
 */
export const bcryptPool = new BcryptPool()
