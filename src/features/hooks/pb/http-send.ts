/**
 * PocketBase's `$http.send(config)` for `*.pb.js` handlers and `pb_migrations` files. In
 * PocketBase it is synchronous; here the request is made between two runs of the handler (see
 * `invocation.ts`, and `migrate/replay.ts` for migrations): this file reads the config as
 * PocketBase does, sends the request asynchronously through svcbase's SSRF guard
 * (`tools/ssrf.ts`: every address the host resolves to checked, the connection pinned to it;
 * `webhooks.allowPrivateNetworks` lets private and loopback addresses through), follows
 * redirects as Go's client does (each hop checked again), and turns the answer into PocketBase's
 * result `{statusCode, headers, cookies, json, body, raw}`. Failures are PocketBase's Go error
 * texts (`Get "<url>": context deadline exceeded`, `…: connect: connection refused`).
 */
import http from 'node:http'
import https from 'node:https'
import { createGunzip } from 'node:zlib'
import type { App } from '../../../core/app.js'
import { checkTarget, pinnedLookup, SsrfError, type GuardOptions } from '../../../tools/ssrf.js'
import { cookieObject, parseSetCookie } from './http-cookie.js'
import { GoError } from './migrate/go-error.js'
import { byteArray } from './os.js'

/** The longest a send may take, in seconds (PocketBase's default; a longer timeout is cut). */
export const MAX_TIMEOUT_S = 120
/** The most bytes of a response body kept; past it the send fails (as `toString`'s default). */
export const MAX_BODY_BYTES = 32 * 1024 * 1024
/** The most `$http.send` calls of one handler invocation (or one migration step). */
export const MAX_SENDS = 50
/** Go's client gives up after this many redirects. */
const MAX_REDIRECTS = 10

/** A send's config, read as PocketBase reads it. */
export interface SendConfig {
  url: string
  method: string
  headers: [string, string][]
  body: Buffer | null
  timeoutS: number
}

/** A send's answer, plain (what the replay logs; the script's object is built from it). */
export interface SendAnswer {
  statusCode: number
  headers: Record<string, string[]>
  body: Buffer
}

/** A header or body value as Go's JSON decoding into a string leaves it. */
function goString(v: unknown): string {
  if (typeof v === 'string') return v
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  return ''
}

/** Reads `$http.send`'s argument (PocketBase: `{url, method, body, data, headers, timeout}`). */
export function sendConfigOf(arg: unknown): SendConfig {
  if (arg !== undefined && arg !== null && typeof arg !== 'object') {
    const shown = typeof arg === 'function' ? 'a function' : goString(arg) || typeof arg
    throw new TypeError(
      `could not convert function call parameter 0: could not convert ${shown} to map[string]interface {}`,
    )
  }
  const c = (arg ?? {}) as Record<string, unknown>
  const method = typeof c.method === 'string' && c.method !== '' ? c.method.toUpperCase() : 'GET'
  const data = c.data
  let body: Buffer | null = null
  if (data && typeof data === 'object' && Object.keys(data).length > 0)
    body = Buffer.from(JSON.stringify(data))
  else if (['string', 'number', 'boolean'].includes(typeof c.body))
    body = Buffer.from(goString(c.body))
  const headers: [string, string][] = []
  if (c.headers && typeof c.headers === 'object')
    for (const [k, v] of Object.entries(c.headers)) headers.push([k, goString(v)])
  const t = typeof c.timeout === 'number' && Number.isFinite(c.timeout) ? Math.trunc(c.timeout) : 0
  return {
    url: goString(c.url),
    method,
    headers,
    body,
    timeoutS: t <= 0 || t > MAX_TIMEOUT_S ? MAX_TIMEOUT_S : t,
  }
}

/** The identity of a send, to tell whether a later run makes the same call. */
export function sendKey(c: SendConfig): string {
  return JSON.stringify([c.method, c.url, c.headers, c.body?.toString('base64'), c.timeoutS])
}

/** Go's canonical form of a header name (`x-multi` → `X-Multi`). */
export function canonicalHeader(name: string): string {
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) return name
  return name
    .toLowerCase()
    .replace(/(^|-)([a-z])/g, (_m, d: string, c: string) => d + c.toUpperCase())
}

/** Go's `url.Error` operation: the method, capitalised (`Get`, `Post`). */
const opOf = (method: string) => method.charAt(0) + method.slice(1).toLowerCase()

/** The guard's options for sends of `app` (private networks as `webhooks.allowPrivateNetworks`). */
export function guardOf(app: App): GuardOptions {
  const webhooks = (app.settings.get() as { webhooks?: { allowPrivateNetworks?: boolean } })
    .webhooks
  return { allowPrivateNetworks: webhooks?.allowPrivateNetworks === true }
}

/** A failure as the script sees it: PocketBase's Go error. */
const fail = (text: string) => new GoError(text)

/** Node's codes of a certificate no trusted authority signed (Go: "unknown authority"). */
const UNKNOWN_AUTHORITY = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
])

/** The Go text of a connection failure. */
function netText(err: unknown, address: string, port: string): string {
  const code = (err as NodeJS.ErrnoException).code
  if (err instanceof SsrfError) {
    const m = /^cannot resolve (.*): (ENOTFOUND|EAI_AGAIN|ENODATA)$/.exec(err.message)
    return m ? `dial tcp: lookup ${m[1]}: no such host` : err.message
  }
  if (code === 'ECONNREFUSED') return `dial tcp ${address}:${port}: connect: connection refused`
  if (code !== undefined && UNKNOWN_AUTHORITY.has(code))
    return 'tls: failed to verify certificate: x509: certificate signed by unknown authority'
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID')
    return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid'
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return `tls: failed to verify certificate: x509: ${(err as Error).message}`
  if (code === 'ECONNRESET') return 'EOF'
  if (code === 'EHOSTUNREACH') return `dial tcp ${address}:${port}: connect: no route to host`
  return (err as Error).message || String(err)
}

interface Hop {
  status: number
  headers: Record<string, string[]>
  body: Buffer
  location: string | null
}

/** One request/response exchange, to the pinned address, bounded by `deadline`. */
async function exchange(
  url: URL,
  method: string,
  headers: [string, string][],
  body: Buffer | null,
  guard: GuardOptions,
  deadline: number,
  op: string,
): Promise<Hop> {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80')
  const timeout = (): GoError => fail(`${op} "${url.href}": context deadline exceeded`)
  let pin: Awaited<ReturnType<typeof checkTarget>>
  try {
    pin = await Promise.race([
      checkTarget(url, guard),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(timeout()), Math.max(0, deadline - Date.now())).unref(),
      ),
    ])
  } catch (err) {
    if (err instanceof GoError) throw err
    throw fail(`${op} "${url.href}": ${netText(err, '', port)}`)
  }
  const lib = url.protocol === 'https:' ? https : http
  const gzip = !headers.some(([k]) => k.toLowerCase() === 'accept-encoding') && method !== 'HEAD'
  // Go sends the URL's host (a `Host` in the headers is not sent), then the headers.
  const out: [string, string][] = [
    ['Host', url.host],
    ...headers.filter(([k]) => k.toLowerCase() !== 'host'),
  ]
  if (!headers.some(([k]) => k.toLowerCase() === 'user-agent'))
    out.splice(1, 0, ['User-Agent', 'Go-http-client/1.1'])
  if (gzip) out.push(['Accept-Encoding', 'gzip'])
  const sendLength = (body !== null && body.length > 0) || ['POST', 'PUT', 'PATCH'].includes(method)
  if (sendLength && !headers.some(([k]) => k.toLowerCase() === 'content-length'))
    out.push(['Content-Length', String(body?.length ?? 0)])
  return new Promise<Hop>((resolve, reject) => {
    // A keep-alive connection of its own (Go's client keeps connections alive), closed after.
    const agentOptions = { keepAlive: true, maxSockets: 1, lookup: pinnedLookup(pin) }
    const agent =
      url.protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions)
    const req = lib.request(url, { method, headers: out.flat(), agent } as http.RequestOptions)
    req.once('close', () => agent.destroy())
    const timer = setTimeout(() => req.destroy(timeout()), Math.max(0, deadline - Date.now()))
    const failWith = (err: unknown) => {
      clearTimeout(timer)
      req.destroy()
      reject(
        err instanceof GoError
          ? err
          : fail(`${op} "${url.href}": ${netText(err, pin.address, port)}`),
      )
    }
    req.once('error', failWith)
    req.once('response', (res) => {
      const headersOut: Record<string, string[]> = {}
      const raw = res.rawHeaders
      for (let i = 0; i + 1 < raw.length; i += 2) {
        const name = canonicalHeader(raw[i] as string)
        ;(headersOut[name] ??= []).push(raw[i + 1] as string)
      }
      delete headersOut['Transfer-Encoding']
      let stream: NodeJS.ReadableStream = res
      if (gzip && (res.headers['content-encoding'] ?? '').toLowerCase() === 'gzip') {
        delete headersOut['Content-Encoding']
        delete headersOut['Content-Length']
        stream = res.pipe(createGunzip())
      }
      // A connection lost mid-body emits no error on a piped answer: end the send there too.
      res.once('close', () => {
        if (!res.complete) failWith(fail(`${op} "${url.href}": unexpected EOF`))
      })
      const chunks: Buffer[] = []
      let size = 0
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size > MAX_BODY_BYTES) {
          failWith(
            fail(
              `${op} "${url.href}": the response body is over ${MAX_BODY_BYTES} bytes (svcbase's limit for $http.send)`,
            ),
          )
          return
        }
        chunks.push(chunk)
      })
      stream.once('error', failWith)
      stream.once('end', () => {
        clearTimeout(timer)
        resolve({
          status: res.statusCode ?? 0,
          headers: headersOut,
          body: Buffer.concat(chunks),
          location: res.headers.location ?? null,
        })
      })
    })
    req.end(body ?? undefined)
  })
}

/**
 * Sends `c` (asynchronously) as PocketBase's `$http.send` does, through the guard. Resolves to
 * the answer, whatever its status; rejects with a {@link GoError} worded as PocketBase's.
 */
export async function performSend(c: SendConfig, guard: GuardOptions): Promise<SendAnswer> {
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(c.method))
    throw fail(`net/http: invalid method ${JSON.stringify(c.method)}`)
  const deadline = Date.now() + c.timeoutS * 1000
  let method = c.method
  let op = opOf(method)
  let body = c.body
  let headers = c.headers
  let url: URL
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(c.url)?.[1] ?? ''
  try {
    url = new URL(c.url)
  } catch {
    if (scheme === '' || /^https?$/i.test(scheme))
      throw fail(`${op} ${JSON.stringify(c.url)}: unsupported protocol scheme ""`)
    throw fail(`${op} ${JSON.stringify(c.url)}: unsupported protocol scheme "${scheme}"`)
  }
  for (let hops = 0; ; hops++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw fail(
        `${op} ${JSON.stringify(url.href)}: unsupported protocol scheme "${url.protocol.slice(0, -1)}"`,
      )
    if ((url.username || url.password) && !headers.some(([k]) => /^authorization$/i.test(k))) {
      const user = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`
      headers = [...headers, ['Authorization', `Basic ${Buffer.from(user).toString('base64')}`]]
    }
    const target = new URL(url.href)
    target.username = ''
    target.password = ''
    const hop = await exchange(target, method, headers, body, guard, deadline, op)
    const redirect = [301, 302, 303, 307, 308].includes(hop.status) && hop.location !== null
    if (!redirect) return { statusCode: hop.status, headers: hop.headers, body: hop.body }
    if (hops + 1 >= MAX_REDIRECTS) throw fail(`${op} "${url.href}": stopped after 10 redirects`)
    const next = new URL(hop.location as string, url)
    if (hop.status <= 303 && method !== 'GET' && method !== 'HEAD') {
      method = 'GET'
      body = null
      headers = headers.filter(([k]) => !/^content-(type|length)$/i.test(k))
    }
    if (next.host !== url.host)
      headers = headers.filter(
        ([k]) => !/^(authorization|www-authenticate|cookie|cookie2)$/i.test(k),
      )
    url = next
    op = opOf(method)
  }
}

/** The decoded text of an answer's body, once per answer (every run reads the same). */
const texts = new WeakMap<SendAnswer, string>()

const textOf = (a: SendAnswer): string => {
  let text = texts.get(a)
  if (text === undefined) texts.set(a, (text = a.body.toString('utf8')))
  return text
}

/**
 * The script's result of an answer (a fresh object each run): PocketBase's shape. `json`,
 * `raw` and `body` are made when read (a large body costs only what the script reads of it).
 */
export function sendResult(a: SendAnswer): object {
  const headers: Record<string, string[]> = {}
  for (const [k, v] of Object.entries(a.headers)) headers[k] = [...v]
  const cookies: Record<string, object> = {}
  for (const line of a.headers['Set-Cookie'] ?? []) {
    const c = parseSetCookie(line)
    if (c) cookies[c.name] = cookieObject(c)
  }
  const out: Record<string, unknown> = {}
  const lazy = (key: string, make: () => unknown) => {
    let made = false
    let value: unknown
    Object.defineProperty(out, key, {
      enumerable: true,
      configurable: true,
      get: () => {
        if (!made) [made, value] = [true, make()]
        return value
      },
      set: (v: unknown) => {
        ;[made, value] = [true, v]
      },
    })
  }
  lazy('json', () => {
    const raw = textOf(a)
    if (raw === '') return null
    try {
      const v = JSON.parse(raw) as unknown
      return v !== null && typeof v === 'object' ? v : null
    } catch {
      return null
    }
  })
  out.headers = headers
  out.cookies = cookies
  lazy('raw', () => textOf(a))
  // A copy: a script writing into its bytes changes this run's only.
  lazy('body', () => byteArray(Buffer.from(a.body)))
  out.statusCode = a.statusCode
  return out
}
