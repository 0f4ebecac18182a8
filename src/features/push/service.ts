/**
 * The push service: fans a message out to the enabled `_push_subscriptions` rows that match,
 * through the backend of each row's platform, with a bound on the sends in flight; disables a row
 * the service reports gone. Triggers (SPEC §2.7) are run from the event bus after commit, through
 * a bounded background queue, never in the request that made the change.
 */

import type { App } from '../../core/app.js'
import type { RecordEvent } from '../../core/events.js'
import type { PushBackend, PushMessage, PushOutcome, PushTarget } from './backend.js'
import type { PushSettings, PushTrigger } from './settings.js'
import {
  disableSubscription,
  forEachTargetPage,
  SUBSCRIPTIONS,
  type TargetFilter,
} from './subscriptions.js'
import { asText, render, visibleRecord } from './templates.js'

/** Sends in flight at once, over every fan-out of the app. */
export const SEND_CONCURRENCY = 64
/** Trigger fan-outs waiting to run; beyond this a trigger's send is dropped (and logged). */
export const MAX_QUEUED = 1000
/** Fan-outs of the queue that run at once. */
const QUEUE_WORKERS = 2
/** The most `recordRef` values one trigger targets (a multiple relation field). */
const MAX_TARGET_REFS = 100
/** The largest `{title, body, data}` JSON a message may be (Web Push carries ≤ 3993 bytes). */
export const MAX_PAYLOAD_BYTES = 3800

export interface SendResult {
  sent: number
  failed: number
}

/** A counting semaphore. */
class Limiter {
  private active = 0
  private waiting: (() => void)[] = []
  constructor(private readonly max: number) {}
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((r) => this.waiting.push(r))
    else this.active++
    try {
      return await fn()
    } finally {
      const next = this.waiting.shift()
      if (next) next()
      else this.active--
    }
  }
}

/** The JSON size of a message as backends send it. */
export function payloadBytes(msg: PushMessage): number {
  return Buffer.byteLength(JSON.stringify(msg))
}

export class PushService {
  private readonly backends = new Map<string, PushBackend>()
  private readonly limiter = new Limiter(SEND_CONCURRENCY)
  private readonly queue: { filter: TargetFilter; msg: PushMessage }[] = []
  private running = 0
  private serving = false
  private idle: (() => void)[] = []
  private unsubscribe: (() => void) | undefined

  constructor(private readonly app: App) {}

  /** Adds (or replaces) the backend of a platform. */
  addBackend(backend: PushBackend): void {
    this.backends.set(backend.platform, backend)
  }

  /**
   * Sends one message to every matching enabled subscription; resolves with the counts. A
   * background fan-out passes `stopped`: once it says true, the sends not begun are skipped.
   */
  async send(
    msg: PushMessage,
    filter: TargetFilter,
    stopped: () => boolean = () => false,
  ): Promise<SendResult> {
    const result: SendResult = { sent: 0, failed: 0 }
    await forEachTargetPage(this.app, filter, async (targets) => {
      if (stopped()) return false
      await Promise.all(
        targets.map((t) =>
          this.limiter.run(async () => {
            if (stopped()) return
            const outcome = await this.sendOne(t, msg)
            if (outcome.status === 'sent') result.sent++
            else result.failed++
          }),
        ),
      )
      return true
    })
    return result
  }

  private async sendOne(target: PushTarget, msg: PushMessage): Promise<PushOutcome> {
    const settings: PushSettings = this.app.settings.get().push
    const backend = this.backends.get(target.platform)
    if (!backend || !backend.enabled(settings))
      return { status: 'failed', reason: `no enabled ${target.platform} backend` }
    let outcome: PushOutcome
    try {
      outcome = await backend.send(target, msg, settings)
    } catch (err) {
      outcome = { status: 'failed', reason: err instanceof Error ? err.message : String(err) }
    }
    if (outcome.status === 'gone') {
      const c = this.app.collections.find(SUBSCRIPTIONS)
      if (c)
        await disableSubscription(this.app, c, target.id).catch((err: unknown) =>
          this.app.logger.error('push: disabling a gone subscription failed', {
            id: target.id,
            error: String(err),
          }),
        )
    } else if (outcome.status === 'failed') {
      this.app.logger.warn('push send failed', { id: target.id, reason: outcome.reason })
    }
    return outcome
  }

  /** Starts reacting to record events (on serve). */
  start(): void {
    this.serving = true
    this.unsubscribe = this.app.events.subscribe((event) => {
      // NB: another instance's change is pushed there, once; not again here.
      if (event.kind === 'record' && event.remote !== true) this.onRecord(event)
    })
  }

  /**
   * Stops taking triggers, drops the queued ones, and waits for the sends in flight of the
   * fan-outs running (their sends not begun are skipped).
   */
  async stop(): Promise<void> {
    this.serving = false
    this.unsubscribe?.()
    this.queue.length = 0
    if (this.running > 0) await new Promise<void>((r) => this.idle.push(r))
    for (const b of this.backends.values()) await b.close?.()
  }

  /** The triggers of a record change, queued. */
  private onRecord(event: RecordEvent): void {
    if (!this.serving) return
    const triggers = this.app.settings.get().push.triggers
    for (const t of triggers) {
      if (!matches(t, event)) continue
      const job = triggerJob(t, event)
      if (job) this.enqueue(job)
    }
  }

  /** Queues a background fan-out; false (and logged) when the queue is full. */
  enqueue(job: { filter: TargetFilter; msg: PushMessage }): boolean {
    if (!this.serving) return false
    if (this.queue.length >= MAX_QUEUED) {
      this.app.logger.warn('push queue full: a trigger send was dropped', { title: job.msg.title })
      return false
    }
    this.queue.push(job)
    this.pump()
    return true
  }

  private pump(): void {
    while (this.running < QUEUE_WORKERS && this.queue.length > 0) {
      const job = this.queue.shift()!
      this.running++
      void this.send(job.msg, job.filter, () => !this.serving)
        .catch((err: unknown) =>
          this.app.logger.error('push trigger failed', { error: String(err) }),
        )
        .finally(() => {
          this.running--
          if (this.serving) this.pump()
          if (this.running === 0) for (const r of this.idle.splice(0)) r()
        })
    }
  }
}

function matches(t: PushTrigger, event: RecordEvent): boolean {
  if (!t.enabled) return false
  if (t.collection !== event.collection.name && t.collection !== event.collection.id) return false
  return t.events
    .split(',')
    .map((e) => e.trim())
    .includes(event.action)
}

/** The fan-out of one trigger for one record change, or null when it targets nobody. */
export function triggerJob(
  t: PushTrigger,
  event: RecordEvent,
): { filter: TargetFilter; msg: PushMessage } | null {
  const record = visibleRecord(event.collection, event.record)
  const msg = fit({ title: render(t.title, record), body: render(t.body, record) })
  const field = t.targetField.trim()
  if (field === '') return { filter: {}, msg }
  const value = record[field]
  const refs = (Array.isArray(value) ? value : [value])
    .map(asText)
    .filter((v) => v !== '')
    .slice(0, MAX_TARGET_REFS)
  if (refs.length === 0) return null
  // A relation names the collection its ids belong to: the same id in another auth collection
  // is someone else.
  const target = event.collection.fields.find((f) => f.name === field)
  const collectionRef =
    target?.type === 'relation' && typeof target.options.collectionId === 'string'
      ? target.options.collectionId
      : undefined
  return { filter: collectionRef ? { recordRefs: refs, collectionRef } : { recordRefs: refs }, msg }
}

/** Shortens a templated message's body (then title) until it fits {@link MAX_PAYLOAD_BYTES}. */
function fit(msg: PushMessage): PushMessage {
  let { title, body } = msg
  while (payloadBytes({ title, body }) > MAX_PAYLOAD_BYTES && body.length > 0)
    body = body.slice(0, Math.max(0, body.length - Math.max(16, Math.floor(body.length / 8))))
  while (payloadBytes({ title, body }) > MAX_PAYLOAD_BYTES && title.length > 0)
    title = title.slice(0, Math.max(0, title.length - Math.max(16, Math.floor(title.length / 8))))
  return { title, body }
}
