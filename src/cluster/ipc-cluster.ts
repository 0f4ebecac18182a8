import cluster from 'node:cluster'
import { randomUUID } from 'node:crypto'
import {
  AppliedWaits,
  runHandlers,
  type AppliedOutcome,
  type Cluster,
  type ClusterHandler,
  type ClusterMessage,
  type ClusterRecord,
  type ClusterRequests,
  type SharedCounterHit,
  type SharedCounters,
} from '../store/cluster.js'
import { isClusterMessage, TAG, type FromPrimary, type WorkerRequest } from './protocol.js'

/** How long a worker waits for the primary's answer before giving up on a request. */
const ASK_TIMEOUT_MS = 5_000

interface Pending {
  resolve: (value: unknown) => void
  reject: (err: Error) => void
  timer: NodeJS.Timeout
}

/**
 * The `Cluster` of a worker process of `serve --workers N`: messages go to the primary, which
 * relays them to the other workers; the scheduler's leader and the rate-limit counters live in
 * the primary and are asked over IPC with request ids. Can be started again after `close` (an
 * in-process restart of the worker's app).
 */
export class IpcCluster implements Cluster {
  readonly instanceId = `worker-${cluster.worker?.id ?? 0}-${randomUUID()}`
  readonly shared = true
  private readonly handlers = new Set<ClusterHandler>()
  private readonly answerers = new Map<
    string,
    (payload: ClusterRecord) => Promise<ClusterRecord | undefined>
  >()
  private readonly pending = new Map<number, Pending>()
  private nextId = 0
  private listening = false
  private readonly waits = new AppliedWaits()

  readonly leader = {
    claim: (jobId: string, scheduledAt: Date): Promise<boolean> =>
      this.ask({ op: 'claim', jobId, at: scheduledAt.getTime() }) as Promise<boolean>,
  }

  readonly counters: SharedCounters = {
    hit: (key: string, windowMs: number) =>
      this.ask({ op: 'hit', key, windowMs }) as Promise<SharedCounterHit>,
    reset: async () => {
      await this.ask({ op: 'reset' })
    },
  }

  readonly requests: ClusterRequests = {
    ask: async (topic, payload) =>
      ((await this.ask({ op: 'forward', topic, payload })) ?? undefined) as
        ClusterRecord | undefined,
    handle: (topic, handler) => {
      this.answerers.set(topic, handler)
      return () => {
        if (this.answerers.get(topic) === handler) this.answerers.delete(topic)
      }
    },
  }

  /** Answers another worker's forwarded request (no value: not held here). */
  private answer(id: number, topic: string, payload: ClusterRecord): void {
    const handler = this.answerers.get(topic)
    const done = (value?: ClusterRecord) =>
      this.send({ svc: TAG, type: 'answer', id, ...(value ? { value } : {}) })
    if (!handler) return void done()
    handler(payload).then(done, () => done())
  }

  private readonly onMessage = (m: unknown): void => {
    if (!isClusterMessage(m)) return
    const msg = m as FromPrimary
    if (msg.type === 'message') {
      const applied = runHandlers(this.handlers, msg.message, (err) =>
        console.error(`cluster: a handler failed: ${String(err)}`),
      )
      const ack = msg.ack
      if (ack !== undefined)
        void applied.then((ok) =>
          this.send({ svc: TAG, type: 'applied', ack, ...(ok ? {} : { failed: true }) }),
        )
      return
    }
    if (msg.type === 'request') return this.answer(msg.id, msg.topic, msg.payload)
    if (msg.type === 'reply') {
      const p = this.pending.get(msg.id)
      if (!p) return
      this.pending.delete(msg.id)
      clearTimeout(p.timer)
      if (msg.error !== undefined) p.reject(new Error(msg.error))
      else p.resolve(msg.value)
    }
  }

  start(): Promise<void> {
    if (!process.send) return Promise.reject(new Error('not a worker process: no IPC channel'))
    if (!this.listening) process.on('message', this.onMessage)
    this.listening = true
    return Promise.resolve()
  }

  publish(message: ClusterMessage): void {
    this.send({ svc: TAG, type: 'publish', message })
  }

  /** Asks the primary to relay `message` and to wait for the other ready workers to apply it. */
  publishApplied(message: ClusterMessage, timeoutMs: number): Promise<AppliedOutcome> {
    const wait = this.ask({ op: 'apply', message, timeoutMs }, timeoutMs + ASK_TIMEOUT_MS).then(
      (outcome) => outcome as AppliedOutcome,
      (err: unknown): AppliedOutcome => ({ asked: [], late: [], failed: [], error: String(err) }),
    )
    return this.waits.track(wait)
  }

  settled(): Promise<void> {
    return this.waits.settled()
  }

  subscribe(handler: ClusterHandler): () => void {
    this.handlers.add(handler)
    return () => this.handlers.delete(handler)
  }

  async liveInstances(): Promise<number> {
    return (await this.ask({ op: 'live' })) as number
  }

  close(): Promise<void> {
    if (this.listening) process.off('message', this.onMessage)
    this.listening = false
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer)
      p.reject(new Error('the cluster link is closed'))
      this.pending.delete(id)
    }
    return Promise.resolve()
  }

  /** Sends a request to the primary and resolves with its answer. */
  private ask(request: WorkerRequest, timeoutMs = ASK_TIMEOUT_MS): Promise<unknown> {
    if (!this.listening) return Promise.reject(new Error('the cluster link is not started'))
    const id = ++this.nextId
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id)
        reject(new Error(`the primary process did not answer (${request.op})`))
      }, timeoutMs)
      timer.unref()
      this.pending.set(id, { resolve, reject, timer })
      if (!this.send({ svc: TAG, type: 'ask', id, request })) {
        this.pending.delete(id)
        clearTimeout(timer)
        reject(new Error('the primary process is gone'))
      }
    })
  }

  /** Sends to the primary; false when the channel is closed. */
  private send(message: object): boolean {
    if (!process.send || !process.connected) return false
    try {
      process.send(message)
      return true
    } catch {
      return false
    }
  }
}
