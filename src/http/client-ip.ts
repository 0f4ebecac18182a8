import { isIP } from 'node:net'
import type { FastifyRequest } from 'fastify'
import type { Settings } from '../core/settings/index.js'

/** The subset of a request that the client IP is read from. */
type IpSource = Pick<FastifyRequest, 'ip' | 'raw'>

/**
 * Normalizes an IP: an IPv4-mapped IPv6 address becomes its IPv4 form and IPv6 is written fully
 * expanded and lower-cased (`2001:0db8:0000:…`), as PocketBase's RealIP does (reference §10.4).
 * A value that is not an IP is returned trimmed; none (a socket already closed) gives ''.
 */
export function normalizeIp(value: string | undefined): string {
  const ip = (value ?? '').trim()
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip)
  if (mapped && isIP(mapped[1]!) === 4) return mapped[1]!
  if (isIP(ip) !== 6 || ip.includes('%')) return ip
  // The WHATWG URL parser writes IPv6 canonically (embedded IPv4 as hex); expand its `::`.
  const compact = new URL(`http://[${ip}]`).hostname.slice(1, -1)
  const [head = '', tail] = compact.split('::')
  const left = head === '' ? [] : head.split(':')
  const right = tail === undefined || tail === '' ? [] : tail.split(':')
  const zeros = Array<string>(8 - left.length - right.length).fill('0')
  const groups = tail === undefined ? left : [...left, ...zeros, ...right]
  return groups.map((g) => g.padStart(4, '0')).join(':')
}

/** The value of the last occurrence of header `name` (case-insensitive), or ''. */
function lastHeader(req: IpSource, name: string): string {
  const raw = req.raw.rawHeaders
  const wanted = name.trim().toLowerCase()
  let value = ''
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === wanted) value = raw[i + 1]!
  }
  return value
}

/** The first entry of a comma list that is an IP, scanning from the left or the right. */
function pickIp(list: string, leftmost: boolean): string {
  const entries = list.split(',').map((s) => s.trim())
  if (!leftmost) entries.reverse()
  return entries.find((e) => isIP(e) !== 0 && !e.includes('%')) ?? ''
}

/**
 * The client IP of a request (reference §10.4): for each trusted proxy header, in order, the last
 * occurrence is split by commas and scanned from the right (or from the left with
 * `useLeftmostIP`) for the first valid IP; without one, the TCP peer address. Normalized.
 */
export function clientIp(req: IpSource, proxy: Settings['trustedProxy']): string {
  const headers = Array.isArray(proxy.headers) ? proxy.headers : []
  for (const name of headers) {
    if (typeof name !== 'string' || name.trim() === '') continue
    const value = lastHeader(req, name)
    if (value.trim() === '') continue
    const ip = pickIp(value, proxy.useLeftmostIP === true)
    if (ip !== '') return normalizeIp(ip)
  }
  // NB: Fastify reads `ip` from the socket, which no longer has an address once the client has
  // gone (a request that waited long in the queue): then there is no address to report.
  return normalizeIp(req.ip)
}
