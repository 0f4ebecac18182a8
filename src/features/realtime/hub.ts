/**
 * The realtime hub: the SSE clients connected to this instance, their subscriptions indexed by
 * topic, their bound auth, and the keep-alive timer. Clients never leave the instance they
 * connected to; events reach them through the app's event bus (ARCHITECTURE, scaling out).
 */
import type { Logger } from '../../core/logger.js'
import type { ClientOwner } from '../../core/realtime.js'
import type { AuthInfo } from '../../core/request-info.js'
import { randomString } from '../../tools/ids.js'
import { formatSseComment, formatSseMessage } from '../../tools/sse.js'
import type { Subscription } from './subscriptions.js'

/** Where a client's stream is written: an HTTP response, or anything that buffers like one. */
export interface SseSink {
  write(chunk: string): boolean
  /** Bytes queued but not yet flushed to the socket. */
  readonly writableLength: number
  end(): void
}

/** Limits and timings of a hub. */
export interface HubOptions {
  /** The interval of the `:` keep-alive comment (DECISIONS: 25 s). */
  keepAliveMs?: number
  /**
   * The most bytes a client's socket may hold unsent; a client past it is disconnected (it
   * reconnects with a new id and resubscribes, as it does after any drop), so it never holds
   * memory or delays others. Default 1 MiB.
   */
  maxBufferedBytes?: number
  /** The most event deliveries queued for one client before it is disconnected as too slow. */
  maxPendingTasks?: number
  logger?: Logger
}

/** The length of a client id: 40 random `[A-Za-z0-9]`, as PocketBase's. */
export const CLIENT_ID_LENGTH = 40

/** The API key a client's auth was bound with: its `_api_keys` row id and expiry. */
export interface BoundKey {
  id: string
  /** Milliseconds since the epoch; null for a key that never expires. */
  expiresAt: number | null
}

/** The longest delay `setTimeout` takes (about 24.8 days); a later expiry re-arms. */
const MAX_TIMER_MS = 2 ** 31 - 1

/** One connected SSE client. */
export class RealtimeClient {
  /** The auth bound by the first authorised `POST /api/realtime`; null for a guest. */
  auth: AuthInfo | null = null
  /** The API key `auth` was bound with (null for a JWT or a guest): its revocation ends the stream. */
  private key: BoundKey | null = null
  private expiry: NodeJS.Timeout | null = null
  /** Its subscriptions by full subscription string. */
  readonly subscriptions = new Map<string, Subscription>()
  private chain: Promise<void> = Promise.resolve()
  private pending = 0
  private closedFlag = false

  constructor(
    readonly id: string,
    /** The IP that opened the stream; later subscription requests must come from it. */
    readonly ip: string,
    private readonly sink: SseSink,
    private readonly hub: RealtimeHub,
  ) {}

  /** True once the stream ended or the client was dropped. */
  get closed(): boolean {
    return this.closedFlag
  }

  /** The API key the client's auth was bound with, if any. */
  get apiKey(): BoundKey | null {
    return this.key
  }

  /**
   * Binds `auth`, and the API key it came from (null for a JWT or a guest). A key's expiry ends
   * the stream when it comes (a timer per client, re-armed past `setTimeout`'s range).
   */
  bind(auth: AuthInfo | null, key: BoundKey | null): void {
    this.auth = auth
    this.key = auth ? key : null
    this.armExpiry()
  }

  private armExpiry(): void {
    if (this.expiry) clearTimeout(this.expiry)
    this.expiry = null
    const at = this.key?.expiresAt
    if (at == null || this.closedFlag) return
    const left = at - Date.now()
    if (left <= 0) {
      this.hub.drop(this, 'api key expired')
      return
    }
    this.expiry = setTimeout(() => this.armExpiry(), Math.min(left, MAX_TIMER_MS))
    this.expiry.unref()
  }

  /**
   * Writes one message (`id:` is always the client id, as the JS SDK expects). Returns false
   * when the client is closed or was just dropped for an over-full socket buffer.
   */
  send(event: string, data: unknown): boolean {
    return this.sendJson(event, JSON.stringify(data))
  }

  /** {@link send} with the data already serialised as JSON (a push forwarded by another instance). */
  sendJson(event: string, json: string): boolean {
    return this.write(formatSseMessage({ id: this.id, event, data: json }))
  }

  /** Writes a `:` keep-alive comment. */
  ping(): boolean {
    return this.write(formatSseComment())
  }

  private write(chunk: string): boolean {
    if (this.closedFlag) return false
    if (this.sink.writableLength > this.hub.maxBufferedBytes) {
      this.hub.drop(this, 'socket buffer full')
      return false
    }
    this.sink.write(chunk)
    return true
  }

  /**
   * Runs `task` after the client's earlier tasks, so its messages keep the order of the events
   * while other clients proceed independently. Too long a queue drops the client.
   */
  enqueue(task: () => Promise<void>): void {
    if (this.closedFlag) return
    if (this.pending >= this.hub.maxPendingTasks) {
      this.hub.drop(this, 'too many pending events')
      return
    }
    this.pending++
    this.chain = this.chain
      .then(() => (this.closedFlag ? undefined : task()))
      .catch((err: unknown) =>
        this.hub.logger?.error('realtime delivery failed', { error: String(err) }),
      )
      .finally(() => {
        this.pending--
      })
  }

  /** Marks the client closed and ends its stream (idempotent). */
  close(): void {
    if (this.closedFlag) return
    this.closedFlag = true
    if (this.expiry) clearTimeout(this.expiry)
    this.expiry = null
    this.sink.end()
  }
}

/**
 * The clients of this instance, indexed by id and by subscribed topic. Its `sendToClient`,
 * `clientOwner` and `takeSubscription` are the synchronous, this-instance-only forms of the
 * `ClientMessenger` calls (`messenger.ts` builds the service over them and the cluster).
 */
export class RealtimeHub {
  readonly maxBufferedBytes: number
  readonly maxPendingTasks: number
  readonly logger: Logger | undefined
  private readonly clients = new Map<string, RealtimeClient>()
  private readonly byTopic = new Map<string, Set<RealtimeClient>>()
  /** Open streams per client IP (`connections.maxRealtimePerIP`). */
  private readonly perIp = new Map<string, number>()
  private readonly keepAliveMs: number
  /** The keep-alive timer, running only while clients are connected. */
  private timer: NodeJS.Timeout | null = null

  constructor(options: HubOptions = {}) {
    this.maxBufferedBytes = options.maxBufferedBytes ?? 1024 * 1024
    this.maxPendingTasks = options.maxPendingTasks ?? 1000
    this.logger = options.logger
    this.keepAliveMs = options.keepAliveMs ?? 25_000
  }

  /** The number of connected clients. */
  get size(): number {
    return this.clients.size
  }

  /** The open streams of client IP `ip`. */
  streamsFrom(ip: string): number {
    return this.perIp.get(ip) ?? 0
  }

  /** A fresh random client id, unused here. */
  newId(): string {
    let id = randomString(CLIENT_ID_LENGTH)
    while (this.clients.has(id)) id = randomString(CLIENT_ID_LENGTH)
    return id
  }

  /** Registers a new client writing to `sink`, with `id` (a fresh random one by default). */
  connect(sink: SseSink, ip: string, id = this.newId()): RealtimeClient {
    if (this.clients.has(id)) id = this.newId()
    const client = new RealtimeClient(id, ip, sink, this)
    this.clients.set(id, client)
    this.perIp.set(ip, this.streamsFrom(ip) + 1)
    if (!this.timer) {
      this.timer = setInterval(() => {
        for (const c of this.clients.values()) c.ping()
      }, this.keepAliveMs)
      this.timer.unref()
    }
    return client
  }

  /** A connected client by id. */
  get(id: string): RealtimeClient | undefined {
    return this.clients.get(id)
  }

  /** Every connected client. */
  all(): IterableIterator<RealtimeClient> {
    return this.clients.values()
  }

  /** Forgets a client whose stream closed, and ends the stream if still open. */
  disconnect(client: RealtimeClient): void {
    if (this.clients.get(client.id) !== client) return
    this.clients.delete(client.id)
    const left = this.streamsFrom(client.ip) - 1
    if (left > 0) this.perIp.set(client.ip, left)
    else this.perIp.delete(client.ip)
    this.unindex(client)
    client.close()
    if (this.clients.size === 0) this.stopTimer()
  }

  /** Disconnects a client that cannot keep up, saying why in the log. */
  drop(client: RealtimeClient, reason: string): void {
    this.logger?.warn('realtime client dropped', { clientId: client.id, reason })
    this.disconnect(client)
  }

  /** Replaces a client's whole subscription set (reference §4.2: never merged). */
  subscribe(client: RealtimeClient, subscriptions: readonly Subscription[]): void {
    this.unindex(client)
    client.subscriptions.clear()
    if (client.closed) return
    for (const s of subscriptions) {
      client.subscriptions.set(s.name, s)
      let set = this.byTopic.get(s.topic)
      if (!set) {
        set = new Set()
        this.byTopic.set(s.topic, set)
      }
      set.add(client)
    }
  }

  /** The subscriptions of every client on `topic`, with their client. */
  subscribers(topic: string): { client: RealtimeClient; subscription: Subscription }[] {
    const out: { client: RealtimeClient; subscription: Subscription }[] = []
    for (const client of this.byTopic.get(topic) ?? []) {
      for (const subscription of client.subscriptions.values()) {
        if (subscription.topic === topic) out.push({ client, subscription })
      }
    }
    return out
  }

  /** Sends a named event to one client of this instance (see `ClientMessenger`). */
  sendToClient(clientId: string, event: string, data: unknown): boolean {
    return this.clients.get(clientId)?.send(event, data) ?? false
  }

  /** The auth record bound to an open client (see `ClientMessenger.clientOwner`). */
  clientOwner(clientId: string): ClientOwner | null | undefined {
    const client = this.clients.get(clientId)
    if (!client || client.closed) return undefined
    if (!client.auth) return null
    return { collectionId: client.auth.collection.id, recordId: String(client.auth.record.id) }
  }

  /** Drops a client's subscriptions to `topic` (see `ClientMessenger.takeSubscription`). */
  takeSubscription(clientId: string, topic: string, ip?: string): boolean {
    const client = this.clients.get(clientId)
    if (!client || client.closed || (ip !== undefined && client.ip !== ip)) return false
    const kept = [...client.subscriptions.values()].filter((s) => s.topic !== topic)
    if (kept.length === client.subscriptions.size) return false
    this.subscribe(client, kept)
    return true
  }

  /** Ends every stream and stops the keep-alive timer; clients may connect again afterwards. */
  close(): void {
    for (const client of [...this.clients.values()]) this.disconnect(client)
    this.stopTimer()
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }

  private unindex(client: RealtimeClient): void {
    for (const s of client.subscriptions.values()) {
      const set = this.byTopic.get(s.topic)
      set?.delete(client)
      if (set?.size === 0) this.byTopic.delete(s.topic)
    }
  }
}
