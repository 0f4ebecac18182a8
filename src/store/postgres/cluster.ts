/**
 * The PostgreSQL cluster: several svcbase instances on one PostgreSQL schema find each other
 * through it. The bus is LISTEN/NOTIFY (`bus.ts`); the leader, the rate-limit counters and the
 * heartbeat are small tables in the store's schema (`cluster-tables.ts`), each touched by one
 * atomic statement.
 */
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import {
  AppliedWaits,
  type AppliedOutcome,
  type Cluster,
  type ClusterHandler,
  type ClusterMessage,
  type SharedCounters,
} from '../cluster.js'
import { PgApplied } from './applied.js'
import { PgBus } from './bus.js'
import {
  HEARTBEAT_MS,
  claimRun,
  countLive,
  countPlaces,
  createClusterTables,
  dropInstance,
  heartbeat,
  hitCounter,
  liveOthers,
  prune,
  resetCounters,
} from './cluster-tables.js'
import { PgDb } from './database.js'
import { PgRequests } from './requests.js'

/** Options of {@link createPostgresCluster}. */
export interface PostgresClusterOptions {
  /** A `postgres://` connection string. */
  url: string
  /** Whether statements run again are prepared (`PgDbOptions.prepared`; default true). */
  prepared?: boolean
  /** The schema the store works in; the cluster's tables go there and the channel is named after it. */
  schema: string
  /** Where problems that must not stop the instance are told (default: `console.warn`). */
  warn?: (message: string) => void
  /**
   * How often the heartbeat is written and the listener probed, in ms (default 5000; tests
   * shorten it). The probe waits as long for its answer.
   */
  heartbeatMs?: number
  /**
   * Where this instance keeps local files (a digest of the machine and the data folder): the
   * instances of one place share them (`livePlaces`). Default: a place of its own.
   */
  place?: string
}

/** Heartbeats between two prunings of old rows (bus messages, claims, counters, instances). */
const PRUNE_EVERY = 12

/** A started cluster's connections and timer. */
interface Running {
  db: PgDb
  bus: PgBus
  timer: NodeJS.Timeout
}

/**
 * The cluster of the instances sharing one PostgreSQL schema. `start` creates its tables
 * (idempotently), connects the listener and starts the heartbeat; `close` ends every connection
 * and timer and removes this instance's heartbeat row. Both can run again after `close`.
 */
export function createPostgresCluster(options: PostgresClusterOptions): Cluster &
  Required<Pick<Cluster, 'publishApplied' | 'settled'>> & {
    /** Resolves once the messages published so far are sent (tests, shutdown). */
    flush(): Promise<void>
  } {
  const { url, schema } = options
  const warn = options.warn ?? ((m: string) => console.warn(m))
  const instanceId = randomBytes(8).toString('hex')
  const handlers = new Set<ClusterHandler>()
  const every = options.heartbeatMs ?? HEARTBEAT_MS
  const place = options.place ?? ''
  const label = `${hostname()} pid ${process.pid}`
  let running: Running | null = null
  let starting: Promise<void> | null = null
  let closing: Promise<void> | null = null

  const requests: PgRequests = new PgRequests({
    instanceId,
    post: (body) => running?.bus.post(body) ?? Promise.resolve(false),
    others: async () => (running ? (await countLive(running.db, instanceId)) - 1 : 0),
    warn,
  })
  const applied = new PgApplied({
    post: (body) => running?.bus.post(body) ?? Promise.resolve(false),
    others: async () => (running ? liveOthers(running.db, instanceId) : []),
  })
  const waits = new AppliedWaits()

  const need = (): PgDb => {
    if (!running) throw new Error('the PostgreSQL cluster is not started')
    return running.db
  }

  const start = async (): Promise<void> => {
    if (closing) await closing
    if (running) return
    const db = new PgDb({ url, schema, max: 4, prepared: options.prepared })
    const bus = new PgBus({
      url,
      schema,
      instanceId,
      db,
      handlers,
      warn,
      onRequest: (from, request) => requests.onRequest(from, request),
      onReply: (reply) => requests.onReply(reply),
      onApplied: (from, body) => applied.onApplied(from, body),
    })
    try {
      await createClusterTables(db, schema)
      await heartbeat(db, instanceId, place, label)
      await bus.start()
    } catch (err) {
      await bus.close()
      await db.close()
      throw err
    }
    let beats = 0
    const timer = setInterval(() => {
      beats++
      const work = beats % PRUNE_EVERY === 0 ? prune(db) : Promise.resolve()
      void bus.probe(every)
      Promise.all([heartbeat(db, instanceId, place, label), work]).catch((err: unknown) =>
        warn(`cluster: heartbeat failed: ${err instanceof Error ? err.message : String(err)}`),
      )
    }, every)
    timer.unref()
    running = { db, bus, timer }
  }

  const stop = async (): Promise<void> => {
    if (starting) await starting.catch(() => {})
    const r = running
    running = null
    if (!r) return
    clearInterval(r.timer)
    requests.close()
    applied.close()
    await r.bus.close()
    await dropInstance(r.db, instanceId).catch(() => {})
    await r.db.close()
  }

  const counters: SharedCounters = {
    hit: async (key, windowMs) => hitCounter(need(), key, windowMs),
    reset: async () => resetCounters(need()),
  }

  return {
    instanceId,
    shared: true,
    spansMachines: true,
    start() {
      starting ??= start().finally(() => (starting = null))
      return starting
    },
    publish(message: ClusterMessage) {
      running?.bus.publish(message)
    },
    publishApplied(message: ClusterMessage, timeoutMs: number): Promise<AppliedOutcome> {
      if (!running) return Promise.resolve({ asked: [], late: [], failed: [] })
      return waits.track(applied.publish(message, timeoutMs))
    },
    settled: () => waits.settled(),
    subscribe(handler: ClusterHandler) {
      handlers.add(handler)
      return () => handlers.delete(handler)
    },
    leader: {
      async claim(jobId: string, scheduledAt: Date): Promise<boolean> {
        if (!running) return false
        try {
          return await claimRun(running.db, jobId, scheduledAt, instanceId)
        } catch (err) {
          warn(
            `cluster: could not claim ${jobId}: ${err instanceof Error ? err.message : String(err)}`,
          )
          return false
        }
      },
    },
    counters,
    requests,
    liveInstances: async () => countLive(need(), instanceId),
    livePlaces: async () => countPlaces(need(), instanceId),
    flush: () => running?.bus.flush() ?? Promise.resolve(),
    close() {
      closing ??= stop().finally(() => (closing = null))
      return closing
    },
  }
}
