/**
 * Requests between instances over the PostgreSQL bus (`ClusterRequests`): `ask` sends a request
 * to every other instance; each answers with a value (it holds what was asked for) or with
 * nothing; the first value answers the ask, and it settles with `undefined` once every other
 * live instance said no, or after {@link ASK_TIMEOUT_MS}. Replies travel on the same channel,
 * addressed to the asker's instance id (the others ignore them).
 */
import { randomBytes } from 'node:crypto'
import type { ClusterRecord, ClusterRequests } from '../cluster.js'
import type { EnvelopeBody } from './bus.js'

/** How long an ask waits for the other instances' answers. */
export const ASK_TIMEOUT_MS = 3000

type Answerer = (payload: ClusterRecord) => Promise<ClusterRecord | undefined>

/** What the requests need from the cluster. */
export interface RequestsOptions {
  instanceId: string
  /** Sends an envelope to the others; false when it could not be sent. */
  post: (body: EnvelopeBody) => Promise<boolean>
  /** How many other instances are alive now. */
  others: () => Promise<number>
  warn: (message: string) => void
}

const isRecord = (v: unknown): v is ClusterRecord =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** The requests of one cluster; its answerers stay across restarts of the cluster. */
export class PgRequests implements ClusterRequests {
  private readonly answerers = new Map<string, Answerer>()
  private readonly pending = new Map<
    string,
    { waiting: number; done: (value: ClusterRecord | undefined) => void }
  >()

  constructor(private readonly options: RequestsOptions) {}

  async ask(topic: string, payload: ClusterRecord): Promise<ClusterRecord | undefined> {
    const others = await this.options.others()
    if (others <= 0) return undefined
    const id = randomBytes(8).toString('hex')
    return new Promise((resolve) => {
      const finish = (value: ClusterRecord | undefined) => {
        clearTimeout(timer)
        this.pending.delete(id)
        resolve(value)
      }
      const timer = setTimeout(() => finish(undefined), ASK_TIMEOUT_MS)
      this.pending.set(id, { waiting: others, done: finish })
      void this.options.post({ request: { id, topic, payload } }).then((sent) => {
        if (!sent) finish(undefined)
      })
    })
  }

  handle(topic: string, handler: Answerer): () => void {
    this.answerers.set(topic, handler)
    return () => {
      if (this.answerers.get(topic) === handler) this.answerers.delete(topic)
    }
  }

  /** Another instance's request: answered by this instance's handler, or with nothing. */
  onRequest(from: string, request: unknown): void {
    if (!isRecord(request) || typeof request.id !== 'string' || typeof request.topic !== 'string')
      return this.options.warn('cluster bus: ignored a malformed request')
    const id = request.id
    const reply = (value?: ClusterRecord) =>
      void this.options.post({ reply: { to: from, id, ...(value ? { value } : {}) } })
    const handler = this.answerers.get(request.topic)
    if (!handler || !isRecord(request.payload)) return reply()
    handler(request.payload).then(
      (value) => reply(value),
      (err: unknown) => {
        this.options.warn(`cluster bus: a request handler failed: ${String(err)}`)
        reply()
      },
    )
  }

  /** A reply: settles this instance's ask it answers. */
  onReply(reply: unknown): void {
    if (!isRecord(reply) || reply.to !== this.options.instanceId || typeof reply.id !== 'string')
      return
    const pending = this.pending.get(reply.id)
    if (!pending) return
    if (isRecord(reply.value)) pending.done(reply.value)
    else if (--pending.waiting <= 0) pending.done(undefined)
  }

  /** Settles every ask still waiting (the cluster closes). */
  close(): void {
    for (const p of [...this.pending.values()]) p.done(undefined)
  }
}
