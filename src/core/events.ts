import type { Collection } from './collections/model.js'
import type { RecordData } from './request-info.js'

/** A record change, published after its transaction commits. */
export interface RecordEvent {
  kind: 'record'
  action: 'create' | 'update' | 'delete'
  collection: Collection
  record: RecordData
  /** Set when the change was made by another instance (see `cluster-bridge.ts`). */
  remote?: true
}

/** A schema change, published after commit. */
export interface CollectionEvent {
  kind: 'collection'
  action: 'create' | 'update' | 'delete'
  collection: Collection
  /** Set when the change was made by another instance. */
  remote?: true
}

/** A settings change, published after it is stored. */
export interface SettingsEvent {
  kind: 'settings'
  /** Set when the change was made by another instance. */
  remote?: true
}

/**
 * Everything the bus carries. Events with `remote: true` come from another instance sharing the
 * data (re-read here, see `cluster-bridge.ts`): state kept in memory (realtime clients, caches,
 * the backup schedule) follows both kinds; anything that acts on the outside world once per
 * change (push triggers) must skip remote events, since the instance that made the change acts.
 */
export type BusEvent = RecordEvent | CollectionEvent | SettingsEvent

/** A subscriber; errors it throws are reported to the bus's error sink, never to the publisher. */
export type BusHandler = (event: BusEvent) => void | Promise<void>

/**
 * How events travel. The local transport delivers in-process; a shared one (NATS, Redis, PG
 * NOTIFY) delivers to every instance. Subscribers must not assume they share our memory.
 */
export interface EventTransport {
  publish(event: BusEvent): void
  subscribe(handler: BusHandler): () => void
}

/** Delivers events to in-process subscribers on a later tick, so publishing never blocks. */
export class LocalTransport implements EventTransport {
  private handlers = new Set<BusHandler>()

  constructor(private readonly onError: (err: unknown) => void) {}

  publish(event: BusEvent): void {
    for (const handler of this.handlers) {
      setImmediate(() => {
        Promise.resolve()
          .then(() => handler(event))
          .catch(this.onError)
      })
    }
  }

  subscribe(handler: BusHandler): () => void {
    this.handlers.add(handler)
    return () => this.handlers.delete(handler)
  }
}

/** The event bus of an app: realtime, webhooks, push and audit subscribe here. */
export class EventBus {
  private forward: ((event: BusEvent) => void) | null = null

  constructor(private readonly transport: EventTransport) {}

  /**
   * Publishes an event; delivery is asynchronous. A local event (no `remote` flag) is also
   * handed to the forwarder, which sends it to the other instances.
   */
  publish(event: BusEvent): void {
    this.transport.publish(event)
    if (this.forward && event.remote !== true) this.forward(event)
  }

  /** Sets (or with null removes) the forwarder of local events to other instances. */
  forwardTo(fn: ((event: BusEvent) => void) | null): void {
    this.forward = fn
  }

  /** Subscribes to every event; returns the unsubscribe function. */
  subscribe(handler: BusHandler): () => void {
    return this.transport.subscribe(handler)
  }
}
