/**
 * Per-address connection accounting (security issue #32, slow clients): the open TCP connections
 * of each peer address are counted as they are accepted, and one past the cap is answered 429 and
 * closed before Node's HTTP parser ever sees it, so no request on it runs. The cap and the header
 * timeout are read from the settings at each new connection, so a change applies to the next one.
 */
import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import { STATUS_CODES } from 'node:http'
import { ApiError, messages } from '../core/errors.js'
import type { ConnectionsSettings } from '../core/settings/groups/connections.js'
import { normalizeIp } from './client-ip.js'

/** What the guard reads at each new connection. */
export interface ConnectionPolicy {
  /** The cap of open connections per peer address; 0 means none. */
  maxPerIp: number
  /** The header timeout in milliseconds (applied to the server). */
  headersTimeoutMs: number
}

/** The policy of the current settings: no cap while a proxy's headers are trusted. */
export function connectionPolicy(
  connections: ConnectionsSettings,
  proxyHeaders: readonly unknown[],
): ConnectionPolicy {
  return {
    maxPerIp: proxyHeaders.length > 0 ? 0 : connections.maxConnectionsPerIP,
    headersTimeoutMs: connections.headersTimeout * 1000,
  }
}

/** How long a refused socket may take to read the 429 before it is destroyed. */
const REFUSED_LINGER_MS = 2_000

/** The raw 429 written on a refused connection, in the `{code, message, data}` shape. */
function refusal(): string {
  const body = JSON.stringify(new ApiError(429, messages.tooManyConnections).toJSON())
  return (
    `HTTP/1.1 429 ${STATUS_CODES[429]}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  )
}

/** Counts open connections per peer address on one HTTP server. */
export class ConnectionGuard {
  private readonly open = new Map<string, number>()

  constructor(private readonly policy: () => ConnectionPolicy) {}

  /** The open connections counted for `ip` (normalised as the client IP is). */
  count(ip: string): number {
    return this.open.get(normalizeIp(ip)) ?? 0
  }

  /**
   * Puts the guard in front of `server`'s `connection` listeners (Node's HTTP parser among
   * them): they run only for admitted sockets. Call it right after creating the server.
   */
  install(server: Server): void {
    const listeners = server.listeners('connection') as ((socket: Socket) => void)[]
    server.removeAllListeners('connection')
    server.on('connection', (socket: Socket) => {
      const policy = this.policy()
      server.headersTimeout = policy.headersTimeoutMs
      if (!this.admit(socket, policy.maxPerIp)) return
      for (const listener of listeners) listener.call(server, socket)
    })
  }

  /** Counts `socket` in, or refuses it (429, then closed) when its address is at the cap. */
  private admit(socket: Socket, max: number): boolean {
    const ip = normalizeIp(socket.remoteAddress ?? '')
    const n = this.open.get(ip) ?? 0
    if (max > 0 && n >= max) {
      refuse(socket)
      return false
    }
    this.open.set(ip, n + 1)
    socket.once('close', () => {
      const left = (this.open.get(ip) ?? 1) - 1
      if (left <= 0) this.open.delete(ip)
      else this.open.set(ip, left)
    })
    return true
  }
}

/**
 * Answers 429 on a refused socket and closes it: what the client sends is read and dropped (so
 * closing does not reset the connection before the answer is read), and the socket is destroyed
 * after a short linger whatever the client does.
 */
function refuse(socket: Socket): void {
  socket.on('error', () => socket.destroy())
  socket.resume()
  socket.end(refusal())
  const linger = setTimeout(() => socket.destroy(), REFUSED_LINGER_MS)
  linger.unref()
  socket.once('close', () => clearTimeout(linger))
}
