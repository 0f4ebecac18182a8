import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'

/**
 * A small pool of worker threads for CPU-bound work a request may ask for (a QR code's module
 * matrix, a user regex over a long value): the event loop only posts the input and reads the
 * answer, so no request holds it for the length of the computation. One job per thread at a time,
 * a bounded queue behind them ({@link CpuPoolBusyError} when full), threads started on first use
 * and stopped after a quiet spell or when the last app releases the pool.
 */

/**
 * A kind of job: a name, and the source of a function `(input, load) => result` run on a worker
 * (`load(name)` requires one of `packages`, given as resolved paths). The function is compiled
 * once per worker; its input and result cross threads by structured clone.
 */
export interface CpuTask {
  readonly name: string
  readonly source: string
  readonly packages?: Readonly<Record<string, string>>
}

/** Thrown by {@link CpuPool.run} when every thread is busy and the queue is full. */
export class CpuPoolBusyError extends Error {
  constructor(readonly queued: number) {
    super(`the CPU worker pool is busy (${queued} jobs waiting)`)
    this.name = 'CpuPoolBusyError'
  }
}

/** The threads of the process-wide pool: one per core. */
export const CPU_POOL_THREADS = Math.max(1, availableParallelism())
/** Jobs that may wait for a thread; one more is refused with {@link CpuPoolBusyError}. */
export const CPU_POOL_QUEUE = 64
/** How long an unused thread lives on, in ms. */
const IDLE_MS = 5_000

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads')
const tasks = new Map()
const loaded = new Map()
parentPort.on('message', (m) => {
  try {
    let fn = tasks.get(m.task)
    if (!fn) {
      const packages = m.packages || {}
      const load = (name) => {
        if (!loaded.has(name)) loaded.set(name, require(packages[name]))
        return loaded.get(name)
      }
      const made = new Function('return (' + m.source + ')')()
      fn = (input) => made(input, load)
      tasks.set(m.task, fn)
    }
    parentPort.postMessage({ id: m.id, result: fn(m.input) })
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: String((err && err.message) || err) })
  }
})
`

interface Job {
  task: CpuTask
  input: unknown
  resolve: (v: unknown) => void
  reject: (e: Error) => void
}

interface PoolWorker {
  worker: Worker
  job: Job | null
  /** Task names this worker has compiled (their source is sent only once). */
  known: Set<string>
  idle: NodeJS.Timeout | null
}

/** The pool (see the module comment). */
export class CpuPool {
  private workers: PoolWorker[] = []
  private readonly queue: Job[] = []
  private seq = 0
  private users = 0
  private draining = false

  constructor(
    private readonly size = CPU_POOL_THREADS,
    private readonly maxQueue = CPU_POOL_QUEUE,
  ) {}

  /** Threads running now. */
  get running(): number {
    return this.workers.length
  }

  /** Jobs waiting for a thread now. */
  get queued(): number {
    return this.queue.length
  }

  /**
   * Marks one more app as using the pool; returns the release function (which also calls `also`,
   * another pool's release). When the last user releases, idle threads stop at once and busy
   * ones when their job ends.
   */
  retain(also?: () => Promise<void>): () => Promise<void> {
    this.users++
    this.draining = false
    let released = false
    return async () => {
      if (released) return
      released = true
      await also?.()
      if (--this.users > 0) return
      this.draining = true
      await Promise.all(this.workers.filter((w) => !w.job).map((w) => this.stop(w)))
    }
  }

  /**
   * Runs `task` on `input` on a worker thread. Rejects with {@link CpuPoolBusyError} at once when
   * all threads are busy and {@link CPU_POOL_QUEUE} jobs already wait, and with an `Error`
   * carrying the task's message when it throws.
   */
  run<T>(task: CpuTask, input: unknown): Promise<T> {
    return new Promise<unknown>((resolve, reject) => {
      const job: Job = { task, input, resolve, reject }
      const w = this.free()
      if (w) this.dispatch(w, job)
      else if (this.queue.length >= this.maxQueue) reject(new CpuPoolBusyError(this.queue.length))
      else this.queue.push(job)
    }) as Promise<T>
  }

  /** An idle thread, starting one while the pool is not full; null when all are busy. */
  private free(): PoolWorker | null {
    const idle = this.workers.find((w) => !w.job)
    if (idle) return idle
    return this.workers.length < this.size ? this.start() : null
  }

  private dispatch(w: PoolWorker, job: Job): void {
    if (w.idle) clearTimeout(w.idle)
    w.idle = null
    w.job = job
    // Referenced while it works, so the process waits for the answer; idle it keeps nothing alive.
    w.worker.ref()
    const id = ++this.seq
    const first = !w.known.has(job.task.name)
    w.known.add(job.task.name)
    w.worker.postMessage({
      id,
      task: job.task.name,
      source: first ? job.task.source : undefined,
      packages: first ? job.task.packages : undefined,
      input: job.input,
    })
  }

  private done(w: PoolWorker, answer: { result?: unknown; error?: string }): void {
    const job = w.job
    w.job = null
    if (job) {
      if (answer.error !== undefined) job.reject(new Error(answer.error))
      else job.resolve(answer.result)
    }
    const next = this.queue.shift()
    if (next) {
      this.dispatch(w, next)
      return
    }
    w.worker.unref()
    if (this.draining) {
      void this.stop(w)
      return
    }
    w.idle = setTimeout(() => void this.stop(w), IDLE_MS)
    w.idle.unref()
  }

  private start(): PoolWorker {
    const worker = new Worker(WORKER_SOURCE, { eval: true })
    const entry: PoolWorker = { worker, job: null, known: new Set(), idle: null }
    worker.on('message', (m: { result?: unknown; error?: string }) => this.done(entry, m))
    const lost = (err: unknown) => {
      // A thread that died (out of memory, killed) fails its job; the next job starts another.
      this.workers = this.workers.filter((x) => x !== entry)
      if (entry.idle) clearTimeout(entry.idle)
      const job = entry.job
      entry.job = null
      job?.reject(err instanceof Error ? err : new Error('the CPU worker stopped'))
      const next = this.queue.shift()
      if (next) {
        const w = this.free()
        if (w) this.dispatch(w, next)
        else this.queue.unshift(next)
      }
    }
    worker.on('error', lost)
    worker.on('exit', () => {
      if (this.workers.includes(entry)) lost(new Error('the CPU worker stopped'))
    })
    // NB: after the listeners: attaching a 'message' listener refs the worker again.
    worker.unref()
    this.workers.push(entry)
    return entry
  }

  private async stop(w: PoolWorker): Promise<void> {
    if (w.job) return
    if (w.idle) clearTimeout(w.idle)
    w.idle = null
    this.workers = this.workers.filter((x) => x !== w)
    await w.worker.terminate()
  }
}

/** The resolved path of a package, for {@link CpuTask.packages}. */
export function resolvePackage(name: string): string {
  return createRequire(import.meta.url).resolve(name)
}

/**
 * The process-wide pool: threads are a per-process resource, like libuv's thread pool. Apps
 * `retain` it while bootstrapped, so the threads stop when the last app terminates.
 */
export const cpuPool = new CpuPool()
