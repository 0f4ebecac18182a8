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
 *
 * Settings and collection changes are sent with `cluster.publishApplied`: the write answers (the
 * HTTP layer awaits `cluster.settled()`) only once every other live instance reloaded, so the
 * next request anywhere sees the change. Each instance confirms a message once it handled it
 * (the promise its handler returns). The wait is bounded ({@link APPLY_TIMEOUT_MS}): an instance
 * that does not confirm in time is named in a warning and the write answers anyway (it is
 * committed; see docs/scaling.md). Messages that arrive while the app is still opening (after
 * the cluster started, before `start`) wait and are handled once it is loaded, so an instance
 * that loaded its settings just before a change still applies it.
 */
import type { AppliedOutcome, Cluster, ClusterMessage } from '../store/cluster.js'
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

/** How long a settings or collection change waits for the other instances to apply it. */
export const APPLY_TIMEOUT_MS = 5000

/** Options of the bridge. */
export interface ClusterBridgeOptions {
  /** The bound of the wait for the others to apply a change (default {@link APPLY_TIMEOUT_MS}). */
  applyTimeoutMs?: number
}

/**
 * Links one app's bus to a cluster. Built before the cluster starts (it receives from then on);
 * `start` once bootstrap loaded settings and collections.
 */
export class ClusterBridge {
  private unsubscribe: (() => void) | null = null
  private state: 'opening' | 'started' | 'stopped' = 'opening'
  /** Lets the received messages through (`start`, or `stop`, which drops them). */
  private open: () => void = () => {}
  /** The handling of received messages, in order; held until `start`. */
  private queue: Promise<void> = new Promise((resolve) => (this.open = resolve))
  private readonly applyTimeoutMs: number

  constructor(
    private readonly app: App,
    private readonly events: EventBus,
    private readonly cluster: Cluster,
    /**
     * Reads every collection again from the database into the shared registry (collections
     * gone from it dropped), as a committed local schema change would leave it.
     */
    private readonly reloadCollections: () => Promise<void>,
    options: ClusterBridgeOptions = {},
  ) {
    this.applyTimeoutMs = options.applyTimeoutMs ?? APPLY_TIMEOUT_MS
    // NB: a process alone has nobody to hear from: nothing is subscribed.
    if (cluster.shared) this.unsubscribe = cluster.subscribe((message) => this.enqueue(message))
  }

  /** Starts forwarding local events and handling the others' messages (received so far first). */
  start(): void {
    // NB: a process alone has nobody to tell: every event stays off this path.
    if (this.state !== 'opening' || !this.cluster.shared) return
    this.state = 'started'
    this.events.forwardTo((event) => {
      try {
        this.forward(messageOf(event))
      } catch (err) {
        this.app.logger.error('cluster: publishing an event failed', { error: String(err) })
      }
    })
    this.open()
  }

  /**
   * Stops both directions; waits for the changes sent to be applied by the others (bounded) and
   * for the message being handled.
   */
  async stop(): Promise<void> {
    this.state = 'stopped'
    this.events.forwardTo(null)
    this.unsubscribe?.()
    this.unsubscribe = null
    this.open()
    await this.cluster.settled?.()
    await this.queue
  }

  /** Sends a local change: settings and schema changes wait for the others to apply them. */
  private forward(message: ClusterMessage): void {
    if (message.kind === 'record' || !this.cluster.publishApplied) {
      this.cluster.publish(message)
      return
    }
    void this.cluster
      .publishApplied(message, this.applyTimeoutMs)
      .then((outcome) => this.report(message, outcome))
  }

  /** Warns about the instances that did not apply a change (see docs/scaling.md). */
  private report(message: ClusterMessage, outcome: AppliedOutcome): void {
    const what = message.kind === 'settings' ? 'settings' : `collection ${message.collectionId}`
    if (outcome.error)
      this.app.logger.warn(`cluster: the ${what} change was not sent to the other instances`, {
        error: outcome.error,
      })
    if (outcome.late.length > 0)
      this.app.logger.warn(
        `cluster: the ${what} change answered before these instances applied it (no confirmation within ${this.applyTimeoutMs} ms); they apply it when they handle the message`,
        { instances: outcome.late.join(', ') },
      )
    if (outcome.failed.length > 0)
      this.app.logger.warn(`cluster: these instances failed to apply the ${what} change`, {
        instances: outcome.failed.join(', '),
      })
  }

  /**
   * Queues a received message behind the earlier ones; the promise resolves once it is handled
   * (rejects when handling failed: the sender is told), which is when this instance confirms it.
   */
  private enqueue(message: ClusterMessage): Promise<void> {
    const handled = this.queue.then(() => this.receive(message))
    this.queue = handled.catch((err: unknown) =>
      this.app.logger.error('cluster: a message from another instance failed', {
        kind: message.kind,
        error: String(err),
      }),
    )
    return handled
  }

  /** Turns one message into a local event, once this instance sees the change. */
  async receive(message: ClusterMessage): Promise<void> {
    if (this.state !== 'started' || !this.app.isBootstrapped) return
    if (message.kind === 'settings') {
      await this.app.settings.load()
      this.events.publish({ kind: 'settings', remote: true })
      await subscribersRan()
      return
    }
    if (message.kind === 'collection') {
      const before = this.app.collections.find(message.collectionId)
      await this.reloadCollections()
      const collection =
        message.action === 'delete' ? before : this.app.collections.find(message.collectionId)
      if (!collection) return
      this.events.publish({ kind: 'collection', action: message.action, collection, remote: true })
      await subscribersRan()
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

/**
 * Resolves after the bus's subscribers took the event just published (the local transport hands
 * it over on the next check phase), so what they keep in memory follows before this instance
 * confirms the change.
 */
function subscribersRan(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}
