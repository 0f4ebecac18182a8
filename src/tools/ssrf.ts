/**
 * A guard against server-side request forgery for URLs that users supply (webhooks, Web Push
 * endpoints, OAuth2 avatars): the host is resolved here, every address is classified, and
 * the request connects to exactly the address that was checked (a custom `lookup`), so a DNS
 * rebinding between the check and the connection cannot switch it. Redirects are never followed.
 */
import { lookup as dnsLookup } from 'node:dns/promises'
import http from 'node:http'
import https from 'node:https'
import { isIP, type LookupFunction } from 'node:net'

/** What an address is, after ipaddr.js's `range()` names; only `unicast` is public. */
export type AddressRange =
  | 'unicast'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'linkLocal'
  | 'carrierGradeNat'
  | 'uniqueLocal'
  | 'multicast'
  | 'broadcast'
  | 'reserved'

type V4Rule = [base: number, bits: number, range: AddressRange]

const v4 = (s: string): number => s.split('.').reduce((acc, part) => acc * 256 + Number(part), 0)

/** IPv4 blocks that are not public (RFC 6890 and friends). */
const V4_RULES: V4Rule[] = (
  [
    ['0.0.0.0', 8, 'unspecified'],
    ['10.0.0.0', 8, 'private'],
    ['100.64.0.0', 10, 'carrierGradeNat'],
    ['127.0.0.0', 8, 'loopback'],
    ['169.254.0.0', 16, 'linkLocal'],
    ['172.16.0.0', 12, 'private'],
    ['192.0.0.0', 24, 'reserved'],
    ['192.0.2.0', 24, 'reserved'],
    ['192.88.99.0', 24, 'reserved'],
    ['192.168.0.0', 16, 'private'],
    ['198.18.0.0', 15, 'reserved'],
    ['198.51.100.0', 24, 'reserved'],
    ['203.0.113.0', 24, 'reserved'],
    ['224.0.0.0', 4, 'multicast'],
    ['255.255.255.255', 32, 'broadcast'],
    ['240.0.0.0', 4, 'reserved'],
  ] as const
).map(([base, bits, range]) => [v4(base), bits, range])

function classifyV4(n: number): AddressRange {
  for (const [base, bits, range] of V4_RULES) {
    const size = 2 ** (32 - bits)
    if (n >= base && n < base + size) return range
  }
  return 'unicast'
}

/** The 16 bytes of an IPv6 address (zone id dropped), or null when it is not one. */
export function parseIPv6(text: string): number[] | null {
  let s = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '')
  if (isIP(s) !== 6) return null
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(s)
  if (dotted) {
    const n = v4(dotted[1]!)
    const hex = `${((n >>> 16) & 0xffff).toString(16)}:${(n & 0xffff).toString(16)}`
    s = s.slice(0, -dotted[1]!.length) + hex
  }
  const [head, rest] = s.includes('::') ? s.split('::') : [s, undefined]
  const words = (p: string | undefined) =>
    p === undefined || p === '' ? [] : p.split(':').map((w) => parseInt(w, 16))
  const a = words(head)
  const b = words(rest)
  const all =
    rest === undefined ? a : [...a, ...Array<number>(8 - a.length - b.length).fill(0), ...b]
  if (all.length !== 8) return null
  return all.flatMap((w) => [(w >> 8) & 0xff, w & 0xff])
}

const prefix = (bytes: number[], head: number[], bits: number): boolean => {
  for (let i = 0; i < bits; i++) {
    const byte = i >> 3
    const mask = 0x80 >> (i & 7)
    if ((bytes[byte]! & mask) !== ((head[byte] ?? 0) & mask)) return false
  }
  return true
}

function classifyV6(b: number[]): AddressRange {
  const zeroTo = (n: number) => b.slice(0, n).every((x) => x === 0)
  const v4Tail = (b[12]! << 24) + (b[13]! << 16) + (b[14]! << 8) + b[15]!
  const tailNumber = v4Tail >>> 0
  if (b.every((x) => x === 0)) return 'unspecified'
  if (zeroTo(15) && b[15] === 1) return 'loopback'
  // ::ffff:a.b.c.d (IPv4-mapped): the IPv4 address decides.
  if (zeroTo(10) && b[10] === 0xff && b[11] === 0xff) return classifyV4(tailNumber)
  // ::a.b.c.d (IPv4-compatible, deprecated), NAT64, 6to4, Teredo, documentation: never public.
  if (zeroTo(12)) return 'reserved'
  if (prefix(b, [0x00, 0x64, 0xff, 0x9b], 96)) return 'reserved'
  if (prefix(b, [0x20, 0x02], 16)) return 'reserved'
  if (prefix(b, [0x20, 0x01, 0x00, 0x00], 32)) return 'reserved'
  if (prefix(b, [0x20, 0x01, 0x0d, 0xb8], 32)) return 'reserved'
  if (prefix(b, [0xfe, 0x80], 10)) return 'linkLocal'
  if (prefix(b, [0xfe, 0xc0], 10)) return 'private'
  if (prefix(b, [0xfc], 7)) return 'uniqueLocal'
  if (prefix(b, [0xff], 8)) return 'multicast'
  return 'unicast'
}

/** The range of an IP address (v4 or v6, brackets and zone ids allowed); `reserved` for junk. */
export function classifyAddress(address: string): AddressRange {
  const bare = address.replace(/^\[|\]$/g, '')
  if (isIP(bare) === 4) return classifyV4(v4(bare))
  const bytes = parseIPv6(bare)
  return bytes ? classifyV6(bytes) : 'reserved'
}

/** True for an address a request may reach when private networks are not allowed. */
export const isPublicAddress = (address: string): boolean => classifyAddress(address) === 'unicast'

/** A refusal of the guard; `message` says why (it is stored as a delivery's error). */
export class SsrfError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SsrfError'
  }
}

/** An address the host resolved to, checked. */
export interface PinnedAddress {
  address: string
  family: 4 | 6
}

/** Resolves a host name to every address (the default: `dns.lookup` with `all`). */
export type Resolver = (host: string) => Promise<PinnedAddress[]>

const systemResolver: Resolver = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }))

/** How the guard decides. */
export interface GuardOptions {
  /** Lets loopback, private, link-local, CGNAT and ULA addresses through (development, tests). */
  allowPrivateNetworks: boolean
  /** Addresses let through although not public (an internal allow-list, for tests). */
  allowAddresses?: readonly string[]
  /** The resolver (the system's by default). */
  resolve?: Resolver
}

/** Parses a URL a user supplied: `http:`/`https:` only, a host, no user info. */
export function parseTargetUrl(text: string): URL {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new SsrfError('not a valid URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new SsrfError('only http: and https: URLs are allowed')
  if (url.hostname === '') throw new SsrfError('the URL has no host')
  if (url.username !== '' || url.password !== '')
    throw new SsrfError('user info (user:password@) is not allowed in the URL')
  return url
}

/** True for `localhost`, `*.localhost` (RFC 6761: always loopback), with or without a final dot. */
export const isLocalhostName = (host: string): boolean =>
  /(^|\.)localhost\.?$/i.test(host.replace(/^\[|\]$/g, ''))

/**
 * The check that needs no DNS, for the moment a URL is stored (a resolution there would hold a
 * write up, and the answer may change anyway: {@link checkTarget} decides again when the request
 * is sent): the reason a host that is a non-public address literal (every spelling the URL parser
 * normalises: `127.1`, `0x7f000001`, `[::ffff:127.0.0.1]`, …) or a `localhost` name is refused,
 * or undefined when the host may be sent to.
 */
export function literalRefusal(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (isLocalhostName(host))
    return `refused: ${host} is a loopback name; private networks are not allowed`
  if (!isIP(host)) return undefined
  const range = classifyAddress(host)
  return range === 'unicast'
    ? undefined
    : `refused: ${host} is a ${range} address; private networks are not allowed`
}

/**
 * Resolves the URL's host and checks every address it resolves to; returns the first, to
 * connect to. Throws SsrfError when the URL or any address is refused.
 */
export async function checkTarget(url: URL, options: GuardOptions): Promise<PinnedAddress> {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const literal = isIP(host)
  let addresses: PinnedAddress[]
  if (literal) addresses = [{ address: host, family: literal === 6 ? 6 : 4 }]
  else {
    try {
      addresses = await (options.resolve ?? systemResolver)(host)
    } catch (err) {
      throw new SsrfError(
        `cannot resolve ${host}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      )
    }
  }
  if (addresses.length === 0) throw new SsrfError(`cannot resolve ${host}`)
  if (!options.allowPrivateNetworks) {
    for (const a of addresses) {
      const range = classifyAddress(a.address)
      if (range !== 'unicast' && !options.allowAddresses?.includes(a.address))
        throw new SsrfError(
          `refused: ${host} resolves to ${a.address} (${range}); private networks are not allowed`,
        )
    }
  }
  return addresses[0]!
}

/** A `lookup` that answers with the pinned address only (never asks DNS again). */
export function pinnedLookup(pin: PinnedAddress): LookupFunction {
  return ((_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (opts?.all) cb(null, [{ address: pin.address, family: pin.family }])
    else cb(null, pin.address, pin.family)
  }) as unknown as LookupFunction
}

/** A request through the guard. */
export interface GuardedRequest extends GuardOptions {
  method: string
  headers: Record<string, string>
  body?: string | Buffer
  /** The whole exchange's limit, in milliseconds. */
  timeoutMs: number
  /** Bytes of the response body kept (the rest is read and dropped); default 4096. */
  maxResponseBytes?: number
  /** Keep-alive agents, reused per pinned address (the caller destroys them). */
  agents?: Map<string, http.Agent>
}

/** The answer of a guarded request. */
export interface GuardedResponse {
  status: number
  headers: http.IncomingHttpHeaders
  /** The first `maxResponseBytes` of the body. */
  body: Buffer
  /** The address connected to. */
  address: string
}

const MAX_AGENTS = 64

function agentFor(
  agents: Map<string, http.Agent> | undefined,
  url: URL,
  pin: PinnedAddress,
): http.Agent | undefined {
  if (!agents) return undefined
  const key = `${url.protocol}//${url.host}@${pin.address}`
  let agent = agents.get(key)
  if (!agent) {
    if (agents.size >= MAX_AGENTS) {
      const [oldest, old] = agents.entries().next().value as [string, http.Agent]
      agents.delete(oldest)
      old.destroy()
    }
    const options = { keepAlive: true, maxSockets: 8, lookup: pinnedLookup(pin) }
    agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options)
    agents.set(key, agent)
  }
  return agent
}

/**
 * Sends one request to a user-supplied URL: checked (scheme, host, every resolved address),
 * connected to the pinned address with the original Host and SNI, no redirect followed (a 3xx
 * is returned as it is), bounded in time and in the body bytes kept.
 */
export async function guardedRequest(
  text: string,
  options: GuardedRequest,
): Promise<GuardedResponse> {
  const url = parseTargetUrl(text)
  const pin = await checkTarget(url, options)
  const lib = url.protocol === 'https:' ? https : http
  const max = options.maxResponseBytes ?? 4096
  return new Promise<GuardedResponse>((resolve, reject) => {
    const agent = agentFor(options.agents, url, pin)
    const req = lib.request(url, {
      method: options.method,
      headers: options.headers,
      lookup: pinnedLookup(pin),
      ...(agent ? { agent } : {}),
    })
    const timer = setTimeout(() => {
      req.destroy(new SsrfError(`timed out after ${options.timeoutMs} ms`))
    }, options.timeoutMs)
    req.once('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
    req.once('response', (res) => {
      const chunks: Buffer[] = []
      let kept = 0
      res.on('data', (chunk: Buffer) => {
        if (kept < max) {
          chunks.push(chunk.subarray(0, max - kept))
          kept += Math.min(chunk.length, max - kept)
        }
      })
      res.once('error', (err) => {
        clearTimeout(timer)
        reject(err)
      })
      res.once('end', () => {
        clearTimeout(timer)
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
          address: pin.address,
        })
      })
    })
    req.end(options.body)
  })
}
