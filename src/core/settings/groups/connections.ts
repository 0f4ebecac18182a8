import { maxThreshold, minThreshold } from '../../fields/generic-errors.js'
import { objectGroup } from '../group.js'

/**
 * `connections`: what one client address may hold open (security issue #32, slow clients). Read
 * live: a change applies to the next connection, stream or header check.
 */
export type ConnectionsSettings = {
  /**
   * Open TCP connections per peer address (the socket's remote address, each process of
   * `--workers` counting its own); one more is answered 429 and closed. 0 means no cap. Not
   * applied while `trustedProxy.headers` is set: every connection then comes from the proxy,
   * which should cap its clients itself.
   */
  maxConnectionsPerIP: number
  /**
   * Open realtime (SSE) streams per client IP, as resolved through `trustedProxy`; one more
   * `GET /api/realtime` is answered 429. 0 means no cap.
   */
  maxRealtimePerIP: number
  /** Seconds a connection may take to send a complete request head (then 408 and closed). */
  headersTimeout: number
}

/**
 * The default cap of connections per address: above the 1 300 new connections PocketBase's own
 * benchmark opens at once from one address (1 000 lists and 300 updates), which PocketBase serves.
 */
export const DEFAULT_MAX_CONNECTIONS_PER_IP = 2000
/** The default cap of realtime streams per client IP. */
export const DEFAULT_MAX_REALTIME_PER_IP = 100
/** The default header timeout, in seconds. */
export const DEFAULT_HEADERS_TIMEOUT = 10
/** The longest header timeout accepted, in seconds. */
export const MAX_HEADERS_TIMEOUT = 300

/** The `connections` group: caps not negative, a header timeout of 1–300 s. */
export const connectionsSettings = objectGroup<ConnectionsSettings>({
  key: 'connections',
  defaults: () => ({
    maxConnectionsPerIP: DEFAULT_MAX_CONNECTIONS_PER_IP,
    maxRealtimePerIP: DEFAULT_MAX_REALTIME_PER_IP,
    headersTimeout: DEFAULT_HEADERS_TIMEOUT,
  }),
  check(g) {
    g.count('maxConnectionsPerIP', 0)
    g.count('maxRealtimePerIP', 0)
    const timeout = g.integer('headersTimeout')
    if (timeout === undefined) return
    if (timeout < 1) g.fail('headersTimeout', minThreshold(1))
    else if (timeout > MAX_HEADERS_TIMEOUT)
      g.fail('headersTimeout', maxThreshold(MAX_HEADERS_TIMEOUT))
  },
})
