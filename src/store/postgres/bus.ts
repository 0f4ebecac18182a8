/**
 * The PostgreSQL message bus of the cluster: LISTEN on one dedicated connection (a `pg.Client`
 * outside the pool) that reconnects with backoff when dropped, `pg_notify` through the pool.
 *
 * A message travels inline as `{"from": instanceId, "message": …}` when the payload stays under
 * {@link INLINE_LIMIT} bytes (NOTIFY refuses 8000 and more); a bigger one is written to
 * `_svc_bus` and the payload carries only `{"from", "ref": id}`, which receivers read back.
 * Receivers handle payloads one at a time in arrival order, so a message read from the table is
 * never overtaken by a later inline one. Messages sent while the listener is down are lost
 * (NOTIFY keeps nothing for absent listeners): delivery is at most once.
 *
 * A message sent with an `ack` id asks its receivers to confirm: each answers `applied` (to the
 * sender, on the same channel) once its handlers finished with it (`applied.ts` waits for them).
 * The listener connection takes its `application_name` (which `liveInstances` looks for) only
 * once it LISTENs, so an instance counted as live receives every message sent after the count.
 */
import { createHash } from 'node:crypto'
import pg from 'pg'
import {
  runHandlers,
  type ClusterHandler,
  type ClusterMessage,
  type ClusterRecord,
} from '../cluster.js'
import { ident, join, sql } from '../sql.js'
import { BusOutbox, type PostBody } from './bus-outbox.js'
import type { PgDb } from './database.js'
import { postgresDialect } from './postgres-dialect.js'

/** The largest payload (UTF-8 bytes) sent inline; NOTIFY's own limit is 8000. */
export const INLINE_LIMIT = 7900

/** Reconnect delays of the listener: from the first to the cap, doubling. */
const FIRST_RETRY_MS = 100
const MAX_RETRY_MS = 5000

/** The NOTIFY channel of one schema (a valid identifier of at most 63 bytes). */
export function busChannel(schema: string): string {
  const name = `svc_bus_${schema}`
  if (Buffer.byteLength(name) <= 63) return name
  return `svc_bus_${createHash('sha256').update(schema).digest('hex').slice(0, 40)}`
}

/** The start of a listener connection's `application_name`; the instance id follows. */
export const LISTENER_PREFIX = 'svc_bus_'

/** The `application_name` of an instance's listener connection (`liveInstances` looks for it). */
export function listenerName(instanceId: string): string {
  return `${LISTENER_PREFIX}${instanceId}`
}

/**
 * What a notification carries besides its sender: a message, a request to the others or a
 * reply to one (`requests.ts`), or `ref`, the id of the `_svc_bus` row holding the envelope.
 */
export type EnvelopeBody =
  | { message: ClusterMessage; ack?: string }
  | { request: { id: string; topic: string; payload: ClusterRecord } }
  | { reply: { to: string; id: string; value?: ClusterRecord } }
  | { applied: { to: string; id: string; failed?: true } }

type Envelope = {
  from: string
  message?: unknown
  ack?: unknown
  request?: unknown
  reply?: unknown
  applied?: unknown
  ref?: unknown
}

/** The `application_name` of a listener connection until it LISTENs. */
const CONNECTING_NAME = 'svc_bus_connecting'

/** Options of the bus. */
export interface BusOptions {
  url: string
  schema: string
  instanceId: string
  /** The pool (bound to the schema) used for `pg_notify` and the `_svc_bus` table. */
  db: PgDb
  handlers: ReadonlySet<ClusterHandler>
  /** Receives the other instances' requests and replies (`requests.ts`). */
  onRequest?: (from: string, request: unknown) => void
  onReply?: (reply: unknown) => void
  /** Receives the other instances' confirmations of messages sent with an `ack` id. */
  onApplied?: (from: string, applied: unknown) => void
  warn: (message: string) => void
}

/** The bus of one started cluster; `close` ends it for good (a restart builds a new one). */
export class PgBus {
  private readonly channel: string
  private client: pg.Client | null = null
  /** Drops the current listener connection and reconnects (set while one is connected). */
  private drop: ((err?: Error) => void) | null = null
  private closed = false
  private retryMs = FIRST_RETRY_MS
  /** True once the first connection listened: later ones are reconnections. */
  private connected = false
  private retryTimer: NodeJS.Timeout | null = null
  private readonly outbox: BusOutbox
  private receiving: Promise<void> = Promise.resolve()

  constructor(private readonly options: BusOptions) {
    this.channel = busChannel(options.schema)
    this.outbox = new BusOutbox({
      payload: (body) => this.payload(body),
      notify: (payloads) => this.notify(payloads),
      failed: (err) =>
        this.options.warn(`cluster bus: a message could not be sent: ${describe(err)}`),
    })
  }

  /** Connects the listener; rejects when the first connection fails. */
  async start(): Promise<void> {
    await this.connect()
  }

  /** Sends a message to the other instances (in order, after the earlier ones). */
  publish(message: ClusterMessage): void {
    void this.post({ message })
  }

  /**
   * Sends an envelope to the other instances, in order after the earlier ones; resolves once
   * sent (false when it could not be, or the bus is closed). `body` may be a function run in
   * its turn (so what it reads comes after the earlier sends): null from it sends nothing.
   */
  post(body: PostBody): Promise<boolean> {
    if (this.closed) return Promise.resolve(false)
    return this.outbox.post(body)
  }

  /** Waits for the messages published so far to be sent (or to have failed). */
  flush(): Promise<void> {
    return this.outbox.drained()
  }

  /**
   * Checks that the listener connection still answers (a connection cut without a reset, by a
   * NAT or a failover, would otherwise go quiet forever): a `SELECT 1` on it, given up after
   * `timeoutMs`, in which case the connection is dropped and a new one listens.
   */
  async probe(timeoutMs: number): Promise<void> {
    const client = this.client
    const drop = this.drop
    if (!client || !drop || this.closed) return
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
    })
    try {
      await Promise.race([client.query('SELECT 1'), late])
    } catch (err) {
      if (this.client === client) drop(err instanceof Error ? err : new Error(String(err)))
    } finally {
      clearTimeout(timer)
    }
  }

  /** Stops listening; messages being sent are awaited. */
  async close(): Promise<void> {
    this.closed = true
    if (this.retryTimer) clearTimeout(this.retryTimer)
    this.retryTimer = null
    await this.outbox.drained()
    const client = this.client
    this.client = null
    if (client) await client.end().catch(() => {})
    await this.receiving
  }

  /** The payload of an envelope: inline, or a reference to the `_svc_bus` row it is stored in. */
  private async payload(body: EnvelopeBody): Promise<string> {
    const { db, instanceId } = this.options
    const payload = JSON.stringify({ from: instanceId, ...body })
    if (Buffer.byteLength(payload) <= INLINE_LIMIT) return payload
    const row = await db.get<{ id: number }>(
      sql`INSERT INTO _svc_bus (at, body) VALUES (${NOW_MS}, ${payload}) RETURNING id`,
    )
    return JSON.stringify({ from: instanceId, ref: row!.id })
  }

  /** Notifies the payloads in order, in one statement. */
  private async notify(payloads: string[]): Promise<void> {
    const calls = payloads.map((p) => sql`pg_notify(${this.channel}, ${p})`)
    await this.options.db.run(sql`SELECT ${join(calls)}`)
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.options.url,
      application_name: CONNECTING_NAME,
    })
    let dropped = false
    const onDrop = (err?: Error) => {
      if (dropped) return
      dropped = true
      if (this.client === client) this.client = null
      client.end().catch(() => {})
      if (this.closed) return
      this.options.warn(
        `cluster bus: the listener connection was lost${err ? ` (${err.message})` : ''}; reconnecting (messages sent meanwhile are lost)`,
      )
      this.scheduleReconnect()
    }
    client.on('error', onDrop)
    client.on('end', () => onDrop())
    this.drop = onDrop
    // Until LISTEN returned (and a reconnection's resync is queued), payloads wait here.
    let early: string[] | null = []
    client.on('notification', (n) => {
      if (n.channel !== this.channel) return
      if (early) early.push(n.payload ?? '')
      else this.enqueue(n.payload ?? '')
    })
    try {
      await client.connect()
      await client.query(postgresDialect.compile(sql`LISTEN ${ident(this.channel)}`).sql)
      const named = postgresDialect.compile(
        sql`SELECT set_config('application_name', ${listenerName(this.options.instanceId)}, false)`,
      )
      await client.query(named.sql, named.params)
    } catch (err) {
      dropped = true
      client.removeAllListeners('end')
      await client.end().catch(() => {})
      throw err
    }
    if (this.closed) {
      await client.end().catch(() => {})
      return
    }
    this.client = client
    this.retryMs = FIRST_RETRY_MS
    if (this.connected) this.resync()
    this.connected = true
    for (const payload of early) this.enqueue(payload)
    early = null
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retryTimer) return
    const delay = this.retryMs
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS)
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null
      if (this.closed) return
      this.connect().catch((err: unknown) => {
        this.options.warn(`cluster bus: reconnecting failed: ${describe(err)}`)
        this.scheduleReconnect()
      })
    }, delay)
    this.retryTimer.unref()
  }

  /**
   * After a reconnection: messages sent meanwhile are lost, so the handlers are told to reload
   * what they cache from the database, as if every setting and collection had changed: a
   * `settings` message and a `collection` update with an empty id (the collections are read
   * again; no collection has that id, so no collection event follows).
   */
  private resync(): void {
    const messages: ClusterMessage[] = [
      { kind: 'settings' },
      { kind: 'collection', action: 'update', collectionId: '' },
    ]
    for (const message of messages) {
      this.receiving = this.receiving.then(() => void this.deliver(message))
    }
  }

  private enqueue(payload: string): void {
    this.receiving = this.receiving.then(() =>
      this.receive(payload).catch((err: unknown) => {
        this.options.warn(`cluster bus: a message was dropped: ${describe(err)}`)
      }),
    )
  }

  private async receive(payload: string): Promise<void> {
    let envelope: Envelope
    try {
      envelope = JSON.parse(payload) as Envelope
    } catch {
      this.options.warn('cluster bus: ignored a notification that is not JSON')
      return
    }
    if (!envelope || typeof envelope !== 'object' || typeof envelope.from !== 'string') {
      this.options.warn('cluster bus: ignored a notification without a sender')
      return
    }
    if (envelope.from === this.options.instanceId) return
    if (envelope.ref !== undefined) {
      if (typeof envelope.ref !== 'number' || !Number.isSafeInteger(envelope.ref)) {
        this.options.warn('cluster bus: ignored a notification with an invalid reference')
        return
      }
      const row = await this.options.db.get<{ body: string }>(
        sql`SELECT body FROM _svc_bus WHERE id = ${envelope.ref}`,
      )
      if (!row) {
        this.options.warn(`cluster bus: message ${envelope.ref} is no longer stored (pruned)`)
        return
      }
      envelope = JSON.parse(row.body) as Envelope
    }
    if (envelope.request !== undefined)
      return this.options.onRequest?.(envelope.from, envelope.request)
    if (envelope.reply !== undefined) return this.options.onReply?.(envelope.reply)
    if (envelope.applied !== undefined)
      return this.options.onApplied?.(envelope.from, envelope.applied)
    const message = envelope.message
    if (!isMessage(message)) {
      this.options.warn('cluster bus: ignored a notification with an unknown message')
      return
    }
    const applied = this.deliver(message)
    const ack = envelope.ack
    if (typeof ack !== 'string') return
    // NB: not awaited: the next payloads are read while the handlers apply this one.
    const to = envelope.from
    void applied.then((ok) =>
      this.post({ applied: { to, id: ack, ...(ok ? {} : { failed: true as const }) } }),
    )
  }

  /** Hands a message to every handler; resolves true once all applied it. */
  private deliver(message: ClusterMessage): Promise<boolean> {
    return runHandlers(this.options.handlers, message, (err) =>
      this.options.warn(`cluster bus: a handler failed: ${describe(err)}`),
    )
  }
}

/**
 * The database clock in epoch milliseconds (one clock for every instance); the statement's
 * start, so every use in one statement reads the same value.
 */
export const NOW_MS = sql`(extract(epoch from statement_timestamp()) * 1000)::bigint`

/** A cheap shape check: the three kinds of `ClusterMessage`. */
function isMessage(value: unknown): value is ClusterMessage {
  if (!value || typeof value !== 'object') return false
  const m = value as Record<string, unknown>
  if (m.kind === 'settings') return true
  const actionOk = m.action === 'create' || m.action === 'update' || m.action === 'delete'
  if (m.kind === 'collection') return actionOk && typeof m.collectionId === 'string'
  if (m.kind === 'record') {
    return (
      actionOk &&
      typeof m.collectionId === 'string' &&
      typeof m.recordId === 'string' &&
      (m.record === undefined || (typeof m.record === 'object' && m.record !== null))
    )
  }
  return false
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
