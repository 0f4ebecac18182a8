/**
 * The sending side of the PostgreSQL bus: envelopes leave in the order they were posted, and
 * those posted while a statement is on its way go together in the next one (one `pg_notify`
 * each, in order, in one statement), so a burst of record events costs one round trip instead
 * of one each. A function body runs alone, once every envelope posted before it was sent (what
 * it reads then comes after them).
 */
import type { EnvelopeBody } from './bus.js'

/** What `post` takes: an envelope, or a function making one in its turn (null: nothing to send). */
export type PostBody = EnvelopeBody | (() => Promise<EnvelopeBody | null>)

/** Envelopes notified together in one statement at most. */
export const MAX_BATCH = 64

/** How the outbox reaches the database. */
export interface OutboxIo {
  /** The payload of an envelope (stored in `_svc_bus` when too big to go inline). */
  payload(body: EnvelopeBody): Promise<string>
  /** Notifies the payloads, in order, in one statement. */
  notify(payloads: string[]): Promise<void>
  /** Told of each envelope that could not be sent. */
  failed(err: unknown): void
}

/** The envelopes posted and not sent yet. */
export class BusOutbox {
  private readonly queue: Array<{ body: PostBody; done: (sent: boolean) => void }> = []
  private pumping = false
  private idle: Promise<void> = Promise.resolve()

  constructor(private readonly io: OutboxIo) {}

  /** Queues an envelope; resolves once sent (false when it could not be). */
  post(body: PostBody): Promise<boolean> {
    return new Promise((done) => {
      this.queue.push({ body, done })
      if (this.pumping) return
      this.pumping = true
      this.idle = this.pump()
    })
  }

  /** Resolves once every envelope posted so far was sent or failed. */
  drained(): Promise<void> {
    return this.idle
  }

  private async pump(): Promise<void> {
    while (this.queue.length > 0) {
      const first = this.queue[0]!
      const make = first.body
      if (typeof make === 'function') {
        this.queue.shift()
        first.done(
          await this.attempt(async () => {
            const body = await make()
            if (body) await this.io.notify([await this.io.payload(body)])
          }),
        )
        continue
      }
      const batch: Array<{ payload: string; done: (sent: boolean) => void }> = []
      const seen = new Set<string>()
      while (batch.length < MAX_BATCH && this.queue.length > 0) {
        const next = this.queue[0]!
        if (typeof next.body === 'function') break
        let payload: string
        try {
          payload = await this.io.payload(next.body)
        } catch (err) {
          this.queue.shift()
          this.io.failed(err)
          next.done(false)
          continue
        }
        // NB: PostgreSQL delivers one of identical payloads notified in one transaction.
        if (seen.has(payload)) break
        this.queue.shift()
        seen.add(payload)
        batch.push({ payload, done: next.done })
      }
      if (batch.length === 0) continue
      const sent = await this.attempt(() => this.io.notify(batch.map((b) => b.payload)))
      for (const b of batch) b.done(sent)
    }
    // NB: in the same turn as the loop's last check (nothing above throws): a post made after
    // it finds the pump stopped and starts a new one.
    this.pumping = false
  }

  private attempt(send: () => Promise<void>): Promise<boolean> {
    return send().then(
      () => true,
      (err: unknown) => {
        this.io.failed(err)
        return false
      },
    )
  }
}
