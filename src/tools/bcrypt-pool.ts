import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'

/**
 * The workers' code, a string so it runs the same from `dist/` and under tsx. Hashes of the
 * standard forms (`$2a$`, `$2b$`, `$2y$`, cost 4–31) against ASCII passwords go to hash-wasm's
 * bcrypt (WebAssembly: about a third faster than bcryptjs); any other input to bcryptjs (pure
 * JavaScript), whose answers hash-wasm matches on the first. Passwords are cut at 72 bytes, as
 * bcryptjs does (hash-wasm refuses longer ones). New hashes are `$2b$`, as bcryptjs writes them:
 * for passwords of at most 72 bytes, `$2a$` and `$2b$` are the same function.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const { randomBytes } = require('node:crypto')
const bcryptjs = require(workerData.bcryptjs)
const wasm = require(workerData.hashWasm)
const STANDARD = /^\\$2[aby]\\$(?:0[4-9]|[12][0-9]|3[01])\\$[./A-Za-z0-9]{53}$/
// No NUL and no byte of 0x80 or more: crypt_blowfish's "$2a$" sign-extension guard (under
// hash-wasm) only changes the key of passwords with such bytes.
const ASCII = /^[\\x01-\\x7f]+$/
async function run(m) {
  const plain = ASCII.test(m.plain) ? m.plain.slice(0, 72) : null
  if (m.op === 'hash') {
    if (plain === null || !Number.isInteger(m.cost) || m.cost < 4 || m.cost > 31)
      return bcryptjs.hashSync(m.plain, m.cost)
    const salt = randomBytes(16)
    const hash = await wasm.bcrypt({ password: plain, salt, costFactor: m.cost, outputType: 'encoded' })
    return '$2b$' + hash.slice(4)
  }
  if (plain === null || !STANDARD.test(m.hash)) return bcryptjs.compareSync(m.plain, m.hash)
  return wasm.bcryptVerify({ password: plain, hash: m.hash })
}
parentPort.on('message', (m) => {
  run(m).then(
    (result) => parentPort.postMessage({ id: m.id, result }),
    (err) => parentPort.postMessage({ id: m.id, error: String((err && err.message) || err) }),
  )
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
    const require = createRequire(import.meta.url)
    const workerData = {
      bcryptjs: require.resolve('bcryptjs'),
      // hash-wasm's bcrypt module alone (29 kB), not the package's every algorithm.
      hashWasm: require.resolve('hash-wasm/dist/bcrypt.umd.min.js'),
    }
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData })
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
