/**
 * The seam between instances that share one database (several processes of `serve --workers N`
 * on one SQLite file, or several machines on one PostgreSQL): a message bus, the scheduler's
 * leader and shared rate-limit counters. One process alone uses {@link localCluster}, which
 * shares nothing and costs nothing.
 *
 * Implementations: `localCluster` (here), the IPC cluster of `serve --workers` (messages relayed
 * by the primary process) and the PostgreSQL cluster (`store/postgres/`: LISTEN/NOTIFY, advisory
 * locks, a counters table), which a PostgreSQL store offers through `Store.cluster`. It lives in `store/` because a store
 * implements it; `core/` wires it (`AppConfig.cluster`, `create-app.ts`).
 */

/** A record as JSON (column name → value). */
export type ClusterRecord = Record<string, unknown>

/**
 * Decides which instance runs a scheduled run (the scheduler's `CronLeader` has this shape):
 * only the instance that gets `true` runs it.
 */
export interface ClusterLeader {
  claim(jobId: string, scheduledAt: Date): boolean | Promise<boolean>
}

/**
 * What one instance tells the others. Messages are small: they carry ids, and receivers re-read
 * what they need from the shared database (and re-check rules themselves). Only a deleted
 * record travels whole, since it cannot be read again; a transport that cannot carry it inline
 * (PostgreSQL NOTIFY's 8000-byte limit) stores it aside and sends a reference.
 */
export type ClusterMessage =
  | {
      kind: 'record'
      action: 'create' | 'update' | 'delete'
      collectionId: string
      recordId: string
      /** The deleted record as it was (deletes only). */
      record?: ClusterRecord
    }
  | { kind: 'collection'; action: 'create' | 'update' | 'delete'; collectionId: string }
  | { kind: 'settings' }

/**
 * A receiver of messages from the other instances. A handler that returns a promise has applied
 * the message once it resolves (rejects: applying it failed); the cluster acknowledges a message
 * sent with {@link Cluster.publishApplied} only after every handler finished.
 */
export type ClusterHandler = (message: ClusterMessage) => void | Promise<void>

/** What a {@link Cluster.publishApplied} found out about the other instances. */
export interface AppliedOutcome {
  /** The other instances that were alive when the message left, asked to apply it. */
  asked: string[]
  /** Those that did not confirm within the wait. */
  late: string[]
  /** Those that confirmed a failure to apply it. */
  failed: string[]
  /** Set when the message could not be sent at all (the others were not told). */
  error?: string
}

/**
 * Runs every handler on a message; resolves true once all finished, false when one threw or
 * rejected (reported to `onError`, the others still run).
 */
export async function runHandlers(
  handlers: Iterable<ClusterHandler>,
  message: ClusterMessage,
  onError: (err: unknown) => void,
): Promise<boolean> {
  const runs = [...handlers].map(async (h) => h(message))
  let ok = true
  for (const r of await Promise.allSettled(runs)) {
    if (r.status === 'fulfilled') continue
    ok = false
    onError(r.reason)
  }
  return ok
}

/**
 * The waits of {@link Cluster.publishApplied} in flight, for {@link Cluster.settled}: each is
 * tracked from the moment it starts (synchronously), so a caller that published and then asks
 * `settled()` waits for it.
 */
export class AppliedWaits {
  private readonly running = new Set<Promise<unknown>>()

  /** Tracks `wait` until it settles; returns it. */
  track<T>(wait: Promise<T>): Promise<T> {
    this.running.add(wait)
    const forget = () => void this.running.delete(wait)
    wait.then(forget, forget)
    return wait
  }

  /** Resolves once every wait begun so far has settled (at once when none runs). */
  settled(): Promise<void> {
    if (this.running.size === 0) return Promise.resolve()
    return Promise.allSettled([...this.running]).then(() => undefined)
  }
}

/** The state of a fixed-window counter right after a hit. */
export interface SharedCounterHit {
  /** Hits in the current window, this one included. */
  count: number
  /** When the current window ends (epoch milliseconds). */
  resetAt: number
}

/**
 * Fixed-window counters shared by every instance: a key's window starts at its first hit and
 * lasts `windowMs`. Counting is atomic across instances.
 */
export interface SharedCounters {
  hit(key: string, windowMs: number): Promise<SharedCounterHit>
  reset(): Promise<void>
}

/**
 * Requests that the one instance holding something answers (a realtime subscription request
 * reaches the instance that holds the client's stream): a request goes to every other instance,
 * and the first handler that returns a value answers it.
 */
export interface ClusterRequests {
  /** Asks the other instances; undefined when none answered (or in time). */
  ask(topic: string, payload: ClusterRecord): Promise<ClusterRecord | undefined>
  /**
   * Answers the others' requests of `topic`: return undefined when this instance does not hold
   * what they ask for. Returns the removal.
   */
  handle(
    topic: string,
    handler: (payload: ClusterRecord) => Promise<ClusterRecord | undefined>,
  ): () => void
}

/** How this instance reaches the others. */
export interface Cluster {
  /** This instance's id (random per process start); messages it sent never come back to it. */
  readonly instanceId: string
  /**
   * True when other instances may share the data. Caches that a change on another instance
   * must invalidate at once (verified auth tokens) are not kept then.
   */
  readonly shared: boolean
  /**
   * True when instances may run on other machines (PostgreSQL): a file on this instance's local
   * disk is not seen by the others, so files must be on S3. Absent: one machine (`serve
   * --workers` on SQLite shares the data folder, local storage included).
   */
  readonly spansMachines?: boolean
  /** Starts listening (after the store is open). */
  start(): Promise<void>
  /** Sends a message to every other instance, after the change it describes committed. */
  publish(message: ClusterMessage): void
  /**
   * Sends a message, in order with `publish`, and resolves once every other instance alive when
   * it left has applied it (its handlers finished there and it confirmed), or once `timeoutMs`
   * passed: the outcome names the instances that did not confirm. When no other instance is
   * alive nothing is sent and it resolves at once. Never rejects. Optional: a cluster without it
   * cannot wait, and `publish` is used instead.
   */
  publishApplied?(message: ClusterMessage, timeoutMs: number): Promise<AppliedOutcome>
  /**
   * Resolves once every {@link publishApplied} begun so far has resolved (at once when none
   * runs). The HTTP layer awaits it before answering a write, so a settings or schema change
   * answers once the other instances applied it.
   */
  settled?(): Promise<void>
  /** Receives the other instances' messages; returns the unsubscribe function. */
  subscribe(handler: ClusterHandler): () => void
  /** Claims each scheduled run once across instances. */
  readonly leader: ClusterLeader
  /**
   * Requests to the instance that holds something (optional: without it, nothing is forwarded
   * and a realtime subscription must reach the instance of its stream by itself).
   */
  readonly requests?: ClusterRequests
  /** Shared rate-limit counters, or null for the in-memory ones of this process. */
  readonly counters: SharedCounters | null
  /**
   * How many instances are alive now, this one included (1 for a process alone). Used to
   * refuse what needs to be alone: local file storage, a restore.
   */
  liveInstances(): Promise<number>
  /**
   * How many places the live instances keep local files in: the instances that share one data
   * folder on one machine (the workers of one `serve --workers`) count once. Absent: as many as
   * `liveInstances()`.
   */
  livePlaces?(): Promise<number>
  /** Stops listening and releases connections; idempotent. */
  close(): Promise<void>
}

/** One process alone: nothing shared, every scheduled run is ours. */
export function localCluster(): Cluster {
  return {
    instanceId: 'local',
    shared: false,
    start: () => Promise.resolve(),
    publish: () => {},
    subscribe: () => () => {},
    leader: { claim: () => true },
    counters: null,
    liveInstances: () => Promise.resolve(1),
    close: () => Promise.resolve(),
  }
}
