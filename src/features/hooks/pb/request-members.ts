/**
 * The members of Go's `*http.Request` that `e.request` has in PocketBase beyond the URL, the
 * method and `header.get` (`events.ts`): `proto`, `host`, `remoteAddr`, `requestURI`,
 * `contentLength`, `cookie(name)` (throws Go's `http: named cookie not present`), `cookies()`,
 * `userAgent()`, `referer()`, `formValue(key)` (the query's first value, else the form body's),
 * `basicAuth()` (`[user, password, ok]`), and `header.values(name)`.
 */
import type { RouteEvent } from '../script-api.js'
import { GoError } from './migrate/go-error.js'
import { strict } from './unsupported.js'

/** The cookies of a `Cookie` header, in order, as Go's `readCookies` reads them. */
function parseCookies(header: string): Array<{ name: string; value: string }> {
  const out: Array<{ name: string; value: string }> = []
  for (const part of header.split(';')) {
    const at = part.indexOf('=')
    if (at <= 0) continue
    const name = part.slice(0, at).trim()
    let value = part.slice(at + 1).trim()
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"'))
      value = value.slice(1, -1)
    if (name !== '') out.push({ name, value })
  }
  return out
}

/** A cookie as a script reads it (Go's `http.Cookie` fields, lower-cased). */
const cookieOf = (c: { name: string; value: string }) =>
  strict('cookie', {
    name: c.name,
    value: c.value,
    string: () => `${c.name}=${c.value}`,
  })

/** `[user, password, ok]` of a `Basic` authorization header. */
function basicAuth(header: string): [string, string, boolean] {
  const m = /^basic\s+(\S+)$/i.exec(header.trim())
  if (!m) return ['', '', false]
  const text = Buffer.from(m[1]!, 'base64').toString('utf8')
  const at = text.indexOf(':')
  return at < 0 ? ['', '', false] : [text.slice(0, at), text.slice(at + 1), true]
}

/** The members above for `e`'s request (`url` is its parsed URL). */
export function httpRequestMembers(e: RouteEvent, url: URL): Record<string, unknown> {
  const r = e.request
  const length = r.header('content-length')
  return {
    proto: r.proto ?? 'HTTP/1.1',
    host: r.header('host'),
    remoteAddr: r.remoteAddr ?? `${e.requestInfo.ip}:0`,
    requestURI: r.url,
    contentLength:
      length === '' ? (r.method === 'GET' || r.method === 'HEAD' ? 0 : -1) : Number(length),
    cookie: (name: unknown) => {
      const found = parseCookies(r.header('cookie')).find((c) => c.name === String(name))
      if (!found) throw new GoError('http: named cookie not present')
      return cookieOf(found)
    },
    cookies: () => parseCookies(r.header('cookie')).map(cookieOf),
    userAgent: () => r.header('user-agent'),
    referer: () => r.header('referer'),
    formValue: (key: unknown): string => {
      const k = String(key)
      const q = url.searchParams.get(k)
      if (q !== null) return q
      const v = e.requestInfo.body[k]
      return typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : ''
    },
    basicAuth: () => basicAuth(r.header('authorization')),
  }
}
