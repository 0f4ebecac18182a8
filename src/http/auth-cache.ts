import type { App } from '../core/app.js'
import type { AuthInfo } from '../core/request-info.js'

/** How long a verified token is trusted without checking it again. */
const TTL_MS = 30_000
const MAX_ENTRIES = 10_000

interface Entry {
  auth: AuthInfo | null
  until: number
}

declare module '../core/services.js' {
  interface AppServices {
    /**
     * The HTTP layer's cache of verified tokens (set by `createHttp`): a write that bypasses the
     * record service (the SQL console) calls `clear()` so no revoked token outlives it.
     */
    authCache: { clear(): void }
  }
}

/**
 * Remembers recently verified bearer tokens, so a busy client does not pay a signature check and
 * a record lookup on every request. Any change to an auth record or auth collection (password,
 * email, tokenKey, deletion, secrets) empties the cache, so a revoked token stops working as soon
 * as that change's event is delivered; entries also expire after 30 s and at the token's `exp`.
 * Writes that go around the record service (the SQL console) clear it through the `authCache`
 * service.
 *
 * When other instances share the data (`app.cluster.shared`), nothing is cached: a change
 * committed on another instance must revoke the token for the very next request here, and only
 * reading the record on every request makes that hold (an event arrives a moment later).
 */
export class AuthCache {
  private readonly entries = new Map<string, Entry>()

  constructor(private readonly app: App) {
    // The hooks clear it before the changing request answers; the bus covers other instances.
    const onChange = async (e: { collection: { type: string }; next(): Promise<void> }) => {
      if (e.collection.type === 'auth') this.clear()
      await e.next()
    }
    app.hooks.onRecordAfterUpdateSuccess.bind(onChange)
    app.hooks.onRecordAfterDeleteSuccess.bind(onChange)
    app.hooks.onCollectionAfterUpdateSuccess.bind(onChange)
    app.hooks.onCollectionAfterDeleteSuccess.bind(onChange)
    app.events.subscribe((e) => {
      if (e.kind === 'record' && e.collection.type === 'auth' && e.action !== 'create') this.clear()
      else if (e.kind === 'collection' && e.collection.type === 'auth') this.clear()
    })
  }

  /** The cached resolution of `token`, or undefined when unknown or expired. */
  get(token: string, now = Date.now()): AuthInfo | null | undefined {
    if (this.entries.size === 0) return undefined
    const e = this.entries.get(token)
    if (!e) return undefined
    if (e.until <= now) {
      this.entries.delete(token)
      return undefined
    }
    return e.auth
  }

  /** Caches a verified token (until `exp`, at most the TTL); invalid tokens are not cached. */
  set(token: string, auth: AuthInfo | null, exp: number | undefined, now = Date.now()): void {
    if (!auth || !this.app.isBootstrapped || this.app.cluster.shared) return
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!)
    const until = Math.min(now + TTL_MS, exp ? exp * 1000 : now + TTL_MS)
    this.entries.set(token, { auth, until })
  }

  /** Forgets everything. */
  clear(): void {
    this.entries.clear()
  }
}
