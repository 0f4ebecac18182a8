/**
 * The bridge between an app's event bus and the other instances sharing its data (issue 17):
 * every event the app publishes after commit goes to the others as a small `ClusterMessage`
 * (ids only; a delete carries the deleted record), and every message from the others becomes a
 * local event again, flagged `remote: true`, once this instance caught up with the change:
 *
 * - record create/update: the record is read again by id (skipped when it is gone already);
 * - record delete: the carried record;
 * - collection change: the collection registry is reloaded from the database first;
 * - settings: the settings are reloaded first.
 *
 * Messages are handled one at a time in arrival order, so a record of a collection created just
 * before is read once the registry knows the collection.
 */
import type { Cluster, ClusterMessage } from '../store/cluster.js'
import type { App } from './app.js'
import type { Collection } from './collections/model.js'
import type { BusEvent, EventBus } from './events.js'

/** The message that tells the other instances about a local event. */
export function messageOf(event: BusEvent): ClusterMessage {
  if (event.kind === 'settings') return { kind: 'settings' }
  if (event.kind === 'collection')
    return { kind: 'collection', action: event.action, collectionId: event.collection.id }
  const message: ClusterMessage = {
    kind: 'record',
    action: event.action,
    collectionId: event.collection.id,
    recordId: String(event.record.id),
  }
  if (event.action === 'delete') message.record = { ...event.record }
  return message
}

/** Links one app's bus to a cluster; `start` after bootstrap loaded settings and collections. */
export class ClusterBridge {
  private unsubscribe: (() => void) | null = null
  /** The handling of received messages, in order. */
  private queue: Promise<void> = Promise.resolve()

  constructor(
    private readonly app: App,
    private readonly events: EventBus,
    private readonly cluster: Cluster,
    /**
     * Reads every collection again from the database into the shared registry (collections
     * gone from it dropped), as a committed local schema change would leave it.
     */
    private readonly reloadCollections: () => Promise<void>,
  ) {}

  /** Starts forwarding local events and receiving the others'. */
  start(): void {
    // NB: a process alone has nobody to tell: every event stays off this path.
    if (this.unsubscribe || !this.cluster.shared) return
    this.events.forwardTo((event) => {
      try {
        this.cluster.publish(messageOf(event))
      } catch (err) {
        this.app.logger.error('cluster: publishing an event failed', { error: String(err) })
      }
    })
    this.unsubscribe = this.cluster.subscribe((message) => {
      this.queue = this.queue.then(() =>
        this.receive(message).catch((err: unknown) =>
          this.app.logger.error('cluster: a message from another instance failed', {
            kind: message.kind,
            error: String(err),
          }),
        ),
      )
    })
  }

  /** Stops both directions and waits for the message being handled. */
  async stop(): Promise<void> {
    this.events.forwardTo(null)
    this.unsubscribe?.()
    this.unsubscribe = null
    await this.queue
  }

  /** Turns one message into a local event, once this instance sees the change. */
  async receive(message: ClusterMessage): Promise<void> {
    if (!this.unsubscribe || !this.app.isBootstrapped) return
    if (message.kind === 'settings') {
      await this.app.settings.load()
      this.events.publish({ kind: 'settings', remote: true })
      return
    }
    if (message.kind === 'collection') {
      const before = this.app.collections.find(message.collectionId)
      await this.reloadCollections()
      const collection =
        message.action === 'delete' ? before : this.app.collections.find(message.collectionId)
      if (!collection) return
      this.events.publish({ kind: 'collection', action: message.action, collection, remote: true })
      return
    }
    const collection = this.app.collections.find(message.collectionId)
    if (!collection) return
    if (message.action === 'delete') {
      if (!message.record) return
      this.publishRecord('delete', collection, message.record)
      return
    }
    const record = await this.app.records.findById(collection, message.recordId)
    if (record) this.publishRecord(message.action, collection, record)
  }

  private publishRecord(
    action: 'create' | 'update' | 'delete',
    collection: Collection,
    record: Record<string, unknown>,
  ): void {
    this.events.publish({ kind: 'record', action, collection, record, remote: true })
  }
}
