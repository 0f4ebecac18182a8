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

/** A receiver of messages from the other instances. */
export type ClusterHandler = (message: ClusterMessage) => void

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
