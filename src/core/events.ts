import type { Collection } from './collections/model.js'
import type { RecordData } from './request-info.js'

/** A record change, published after its transaction commits. */
export interface RecordEvent {
  kind: 'record'
  action: 'create' | 'update' | 'delete'
  collection: Collection
  record: RecordData
}

/** A schema change, published after commit. */
export interface CollectionEvent {
  kind: 'collection'
  action: 'create' | 'update' | 'delete'
  collection: Collection
}

/** A settings change, published after it is stored. */
export interface SettingsEvent {
  kind: 'settings'
}

/** Everything the bus carries. */
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
  constructor(private readonly transport: EventTransport) {}

  /** Publishes an event; delivery is asynchronous. */
  publish(event: BusEvent): void {
    this.transport.publish(event)
  }

  /** Subscribes to every event; returns the unsubscribe function. */
  subscribe(handler: BusHandler): () => void {
    return this.transport.subscribe(handler)
  }
}
