import cluster, { type Worker } from 'node:cluster'
import { MemoryCounterStore } from '../tools/counter-store.js'
import { randomString } from '../tools/ids.js'
import type { AppliedOutcome, ClusterMessage } from '../store/cluster.js'
import { ENV, isClusterMessage, TAG, type FromWorker, type WorkerRequest } from './protocol.js'

/** Options of {@link runPrimary}. */
export interface PrimaryOptions {
  /** How many worker processes (2 or more). */
  workers: number
  /** Where the primary's own lines go: once every worker is ready, and each replacement. */
  log?: (line: string) => void
}

/** A worker died this soon after its start: wait before starting another (a crash loop). */
const QUICK_DEATH_MS = 2_000
const RESTART_DELAY_MS = 1_000
/** How long a forwarded request waits for the other workers (below the worker's own wait). */
const FORWARD_TIMEOUT_MS = 3_000

/**
 * The primary process of `serve --workers N`: forks N workers running the same command line
 * (Node's cluster module shares the listening port between them, round-robin). The first worker
 * starts alone (it migrates the data folder, applies --automigrate and prints the startup lines);
 * the others start once it is ready. The primary relays each worker's cluster messages to the
 * others (a settings or schema change also waits, bounded, for every other ready worker to
 * confirm it applied it, and tells the sender which did not), chooses the scheduler's leader (the live ready worker with the lowest id; a dead one
 * is replaced and leadership moves), claims each scheduled run once, and holds the shared
 * rate-limit counters. SIGTERM/SIGINT stop every worker gracefully, then the primary exits.
 * Resolves once every worker of the start is ready; rejects when the first one cannot start.
 */
export async function runPrimary(options: PrimaryOptions): Promise<void> {
  const log = options.log ?? ((line: string) => console.log(line))
  const counters = new MemoryCounterStore()
  const ready = new Set<number>()
  const started = new Map<number, number>()
  /** The last scheduled time claimed per job: a run is claimed once, even across a handover. */
  const claimed = new Map<string, number>()
  const setupToken = randomString(32)
  let stopping = false

  const alive = (): Worker[] =>
    Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead())
  const leaderId = (): number | undefined => {
    const ids = alive()
      .filter((w) => ready.has(w.id))
      .map((w) => w.id)
    return ids.length > 0 ? Math.min(...ids) : undefined
  }

  /** Forwarded requests waiting for the other workers' answers, by id. */
  const forwards = new Map<number, { waiting: Set<number>; done: (value: unknown) => void }>()
  let nextForward = 0
  /** Asks every other live worker; the first value answers, else null once all said no. */
  const forward = (from: Worker, topic: string, payload: unknown): Promise<unknown> =>
    new Promise((resolve) => {
      const others = alive().filter((o) => o.id !== from.id && ready.has(o.id))
      if (others.length === 0) return resolve(null)
      const id = ++nextForward
      const timer = setTimeout(() => finish(null), FORWARD_TIMEOUT_MS)
      const finish = (value: unknown) => {
        clearTimeout(timer)
        forwards.delete(id)
        resolve(value)
      }
      forwards.set(id, { waiting: new Set(others.map((o) => o.id)), done: finish })
      for (const o of others) send(o, { svc: TAG, type: 'request', id, topic, payload })
    })
  /** A worker's answer to a forwarded request (or its death: no answer from it). */
  const answered = (workerId: number, id: number | null, value: unknown): void => {
    for (const [fid, f] of forwards) {
      if (id !== null && fid !== id) continue
      if (!f.waiting.delete(workerId)) continue
      if (value !== undefined) f.done(value)
      else if (f.waiting.size === 0) f.done(null)
    }
  }

  /** Relayed messages waiting for the other workers to apply them, by ack id. */
  const applies = new Map<number, { waiting: Set<number>; failed: Set<number>; done: () => void }>()
  let nextApply = 0
  const nameOf = (id: number): string =>
    `worker ${id} (pid ${String(cluster.workers?.[id]?.process.pid ?? '?')})`
  /**
   * Relays `message` from `from` to every other live worker and resolves once each ready one
   * applied it (a worker still starting loads the state itself, and handles what reached it
   * meanwhile before it serves), or after `timeoutMs`; a worker that exits is no longer waited
   * for.
   */
  const apply = (from: Worker, message: ClusterMessage, timeoutMs: number) => {
    const targets = alive().filter((o) => o.id !== from.id)
    const id = ++nextApply
    const waiting = new Set(targets.filter((o) => ready.has(o.id)).map((o) => o.id))
    const asked = [...waiting].map(nameOf)
    const failed = new Set<number>()
    const result = new Promise<AppliedOutcome>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        applies.delete(id)
        resolve({ asked, late: [...waiting].map(nameOf), failed: [...failed].map(nameOf) })
      }
      const timer = setTimeout(done, Math.max(0, Math.min(timeoutMs, 60_000)))
      applies.set(id, { waiting, failed, done })
    })
    for (const o of targets) send(o, { svc: TAG, type: 'message', message, ack: id })
    if (waiting.size === 0) applies.get(id)?.done()
    return result
  }
  /** A worker applied (or failed to apply) a relayed message; `ack` null: it exited. */
  const applied = (workerId: number, ack: number | null, fail: boolean): void => {
    for (const [aid, a] of applies) {
      if (ack !== null && aid !== ack) continue
      if (!a.waiting.delete(workerId)) continue
      if (fail) a.failed.add(workerId)
      if (a.waiting.size === 0) a.done()
    }
  }

  const answer = async (w: Worker, request: WorkerRequest): Promise<unknown> => {
    switch (request.op) {
      case 'claim': {
        if (w.id !== leaderId()) return false
        const last = claimed.get(request.jobId)
        if (last !== undefined && request.at <= last) return false
        claimed.set(request.jobId, request.at)
        return true
      }
      case 'hit':
        return counters.hit(request.key, request.windowMs)
      case 'reset':
        await counters.reset()
        return null
      case 'live':
        return alive().length
      case 'forward':
        return forward(w, request.topic, request.payload)
      case 'apply':
        return apply(w, request.message, request.timeoutMs)
    }
  }

  const send = (w: Worker, message: object): void => {
    if (w.isDead() || !w.isConnected()) return
    try {
      w.send(message)
    } catch {
      // NB: the worker is going away; its 'exit' handler replaces it.
    }
  }

  const fork = (first: boolean): Worker => {
    const w = cluster.fork({
      [ENV.first]: first ? '1' : '0',
      [ENV.count]: String(options.workers),
      [ENV.setupToken]: setupToken,
    })
    started.set(w.id, Date.now())
    w.on('message', (m: unknown) => {
      if (!isClusterMessage(m)) return
      const msg = m as FromWorker
      if (msg.type === 'ready') ready.add(w.id)
      else if (msg.type === 'answer') answered(w.id, msg.id, msg.value)
      else if (msg.type === 'applied') applied(w.id, msg.ack, msg.failed === true)
      else if (msg.type === 'publish') {
        for (const other of alive())
          if (other.id !== w.id) send(other, { svc: TAG, type: 'message', message: msg.message })
      } else if (msg.type === 'ask') {
        answer(w, msg.request).then(
          (value) => send(w, { svc: TAG, type: 'reply', id: msg.id, value }),
          (err: unknown) => send(w, { svc: TAG, type: 'reply', id: msg.id, error: String(err) }),
        )
      }
    })
    return w
  }

  /** Resolves when `w` is ready; rejects when it exits first. */
  const whenReady = (w: Worker): Promise<void> =>
    new Promise((resolve, reject) => {
      const onMessage = (m: unknown) => {
        if (isClusterMessage(m) && m.type === 'ready') {
          w.off('exit', onExit)
          resolve()
        }
      }
      const onExit = (code: number | null, signal: string | null) => {
        w.off('message', onMessage)
        reject(
          new Error(`worker ${w.id} exited (${signal ?? `code ${String(code)}`}) before serving`),
        )
      }
      w.on('message', onMessage)
      w.once('exit', onExit)
    })

  const stop = () => {
    if (stopping) return
    stopping = true
    for (const w of alive()) w.process.kill('SIGTERM')
    const check = () => {
      if (alive().length > 0) return
      void counters.close()
      process.exit(0)
    }
    cluster.on('exit', check)
    check()
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)

  const first = fork(true)
  try {
    await whenReady(first)
  } catch (err) {
    stopping = true
    await counters.close()
    throw err
  }

  cluster.on('exit', (w, code, signal) => {
    ready.delete(w.id)
    answered(w.id, null, undefined)
    applied(w.id, null, false)
    if (stopping) return
    const lived = Date.now() - (started.get(w.id) ?? 0)
    started.delete(w.id)
    log(
      `worker ${w.id} (pid ${String(w.process.pid)}) exited (${signal ?? `code ${String(code)}`}): starting another`,
    )
    setTimeout(
      () => {
        if (!stopping) fork(false)
      },
      lived < QUICK_DEATH_MS ? RESTART_DELAY_MS : 0,
    )
  })

  const rest = Array.from({ length: options.workers - 1 }, () => fork(false))
  await Promise.allSettled(rest.map(whenReady))
  log(
    `${options.workers} worker processes share the address (pids ${alive()
      .map((w) => String(w.process.pid))
      .join(', ')}; primary ${process.pid})`,
  )
}
